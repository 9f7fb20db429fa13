import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const scopes = new AsyncLocalStorage<string>();

const SECRET_BYTES = 18;
const POOL_BYTES = SECRET_BYTES * 256;
let pool = Buffer.alloc(0);
let offset = POOL_BYTES;

/** A fresh owner secret: 144 random bits, base64url; drawn from a pool, as `crypto.randomUUID()` does. */
export function newOwnerSecret(): string {
  if (offset + SECRET_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  offset += SECRET_BYTES;
  return pool.toString("base64url", offset - SECRET_BYTES, offset);
}

/** Runs `fn` as one lock owner: every acquire inside it (without an explicit `owner`) re-enters the keys it already holds. */
export function runAsLockOwner<T>(fn: () => T, ownerSecret: string = scopes.getStore() ?? newOwnerSecret()): T {
  return scopes.run(ownerSecret, fn);
}

/** The owner secret of the enclosing `runAsLockOwner`/`withLock`, if any. */
export function currentOwnerSecret(): string | undefined {
  return scopes.getStore();
}
