import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const scopes = new AsyncLocalStorage<string>();

/** A fresh owner secret: 144 random bits, base64url. */
export function newOwnerSecret(): string {
  return randomBytes(18).toString("base64url");
}

/** Runs `fn` as one lock owner: every acquire inside it (without an explicit `owner`) re-enters the keys it already holds. */
export function runAsLockOwner<T>(fn: () => T, ownerSecret: string = scopes.getStore() ?? newOwnerSecret()): T {
  return scopes.run(ownerSecret, fn);
}

/** The owner secret of the enclosing `runAsLockOwner`/`withLock`, if any. */
export function currentOwnerSecret(): string | undefined {
  return scopes.getStore();
}
