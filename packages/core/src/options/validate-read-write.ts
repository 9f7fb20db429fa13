import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ReadWriteAcquireOptions } from "../types.js";
import { MAX_KEY_LENGTH, MAX_READ_WRITE_NAME_LENGTH, READ_WRITE_NAME_PREFIX } from "./defaults.js";
import { validateAcquireOptions, validateKey } from "./validate-acquire.js";

/** Throws `InvalidArgumentError` (field `name`) unless `name` is a usable read-write lock name: a key, shorter by the prefix its semaphore gets. */
export function validateReadWriteName(name: unknown): asserts name is string {
  if (typeof name === "string" && name.length > MAX_READ_WRITE_NAME_LENGTH) {
    throw new InvalidArgumentError(
      "name",
      `must be at most ${MAX_READ_WRITE_NAME_LENGTH} characters (a key's ${MAX_KEY_LENGTH} less the "${READ_WRITE_NAME_PREFIX}" its semaphore is named with), got ${name.length}`,
    );
  }
  validateKey(name, "name");
}

/** The options of one read-write acquire, checked as a lock's; throws `InvalidArgumentError` naming the bad field, `owner` included. */
export function validateReadWriteOptions(options: unknown): ReadWriteAcquireOptions {
  if (typeof options === "object" && options !== null && Object.hasOwn(options, "owner")) {
    throw new InvalidArgumentError(
      "options.owner",
      "is not a read-write lock option: holds re-enter within one owner scope (runAsLockOwner, withReadLock, withWriteLock), never by a named owner",
    );
  }
  const { ttlMs, waitMs, signal, autoRenew } = validateAcquireOptions(options);
  return { ttlMs, waitMs, signal, autoRenew };
}
