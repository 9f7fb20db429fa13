import { hash, randomUUID } from "node:crypto";

/**
 * What a distlock node holds as its data. The hold count lives here, on the server, because an explicit owner may
 * re-enter from another provider or process; Curator keeps its count in the JVM and writes the client's IP address as
 * the data, so a Curator node reads as a foreign hold. The owner secret is stored only as a SHA-256 digest: anyone who
 * may read the node may read its data.
 */
export interface HoldRecord {
  /** Public holder label. */
  readonly holder: string;
  /** base64url SHA-256 of the owner secret, or a random token for a fresh owner (`ownerOf`). */
  readonly owner: string;
  /** Reentrancy depth. */
  readonly count: number;
  /** The lease the last writer asked for, in ms, counted from its write. */
  readonly leaseMs: number;
}

const FORMAT = 1;

/**
 * How a new node's record names its owner: the digest of the secret, which another provider or process bringing the same
 * secret matches; or, for a fresh owner (a secret core drew for this acquire alone, which nobody else ever brings, so
 * nobody else ever matches it), a random token, as unrevealing as the digest and cheaper. The driver that holds the node
 * keeps the token with the secret (`HeldNode`).
 */
export function ownerOf(request: { readonly ownerSecret: string; readonly freshOwner?: boolean }): string {
  return request.freshOwner === true ? randomUUID() : ownerDigest(request.ownerSecret);
}

/** The last secret digested, and its digest: a release asks for the digest its acquire just made. */
let lastSecret: string | undefined;
let lastDigest = "";

export function ownerDigest(ownerSecret: string): string {
  if (ownerSecret !== lastSecret) {
    lastDigest = hash("sha256", ownerSecret, "base64url");
    lastSecret = ownerSecret;
  }
  return lastDigest;
}

/** The holder label as JSON, kept for the next record: one provider writes one label. */
let lastHolder: string | undefined;
let lastHolderJson = "";

/**
 * The record as JSON, `{"distlock":1,"holder":…,"owner":…,"count":…,"leaseMs":…}`, written out field by field: the
 * same text as `JSON.stringify` gives (the owner is base64url, the numbers integers), without building an object.
 */
export function encodeHoldRecord(record: HoldRecord): Buffer {
  if (record.holder !== lastHolder) {
    lastHolderJson = JSON.stringify(record.holder);
    lastHolder = record.holder;
  }
  return Buffer.from(
    `{"distlock":${FORMAT},"holder":${lastHolderJson},"owner":${JSON.stringify(record.owner)},"count":${record.count},"leaseMs":${record.leaseMs}}`,
  );
}

/** The record in a node's data, or undefined when the node is not a distlock hold (Curator's, or anyone else's). */
export function decodeHoldRecord(data: Buffer | undefined): HoldRecord | undefined {
  if (data === undefined || data.length === 0 || data[0] !== 0x7b) return undefined;
  try {
    const parsed = JSON.parse(data.toString("utf8")) as Partial<HoldRecord> & { distlock?: unknown };
    if (parsed.distlock !== FORMAT || typeof parsed.holder !== "string" || typeof parsed.owner !== "string") return undefined;
    if (typeof parsed.count !== "number" || typeof parsed.leaseMs !== "number") return undefined;
    return { holder: parsed.holder, owner: parsed.owner, count: parsed.count, leaseMs: parsed.leaseMs };
  } catch {
    return undefined;
  }
}

/** The label `inspect` shows for a node another client wrote (Curator writes its IP address as the data). */
export function foreignHolder(data: Buffer | undefined): string {
  const text = data?.toString("utf8") ?? "";
  return /^[\x20-\x7e]{1,64}$/.test(text) ? `zookeeper:${text}` : "zookeeper:foreign";
}

/** A node's czxid (8 bytes, big-endian) as the fencing token: zxids strictly increase across the ensemble's whole history. */
export function zxidOf(bytes: Buffer): bigint {
  return bytes.readBigUInt64BE(0);
}
