import { reservedPrefix } from "../keys/lock-keys.js";

/**
 * `<prefix>/\0semaphore/<name>\0`: the line of semaphore `name`, below the reserved prefix that no lock reaches. Names
 * hold no control characters, so no semaphore's line contains another's (`a` and `a/b` stay apart).
 */
export function linePrefix(prefix: string, name: string): Buffer {
  return Buffer.concat([reservedPrefix(prefix), Buffer.from(`semaphore/${name}\u0000`)]);
}

/** `<line><owner digest>`: one grant's member key, named after the SHA-256 of its owner secret (a fresh one per acquire). */
export function permitKey(line: Buffer, ownerDigest: string): Buffer {
  return Buffer.concat([line, Buffer.from(ownerDigest)]);
}
