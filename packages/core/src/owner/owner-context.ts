import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const scopes = new AsyncLocalStorage<string>();

/** 18 random bytes (144 bits) make 24 base64url characters, with no padding: a pool's text splits into whole secrets. */
const SECRET_CHARS = 24;
const POOL_SECRETS = 256;
let pool = "";
let offset = 0;

/**
 * A fresh owner secret: 144 random bits, base64url; cut from a pool encoded 256 secrets at a time (as
 * `crypto.randomUUID()` draws from a pool), since encoding each one alone cost more than the rest of an acquire's core.
 */
export function newOwnerSecret(): string {
  if (offset === pool.length) {
    pool = randomBytes((POOL_SECRETS * SECRET_CHARS * 3) / 4).toString("base64url");
    offset = 0;
  }
  offset += SECRET_CHARS;
  return pool.slice(offset - SECRET_CHARS, offset);
}

/** Runs `fn` as one lock owner: every acquire inside it (without an explicit `owner`) re-enters the keys it already holds. */
export function runAsLockOwner<T>(fn: () => T, ownerSecret: string = scopes.getStore() ?? newOwnerSecret()): T {
  return scopes.run(ownerSecret, fn);
}

/** The owner secret of the enclosing `runAsLockOwner`/`withLock`, if any. */
export function currentOwnerSecret(): string | undefined {
  return scopes.getStore();
}
