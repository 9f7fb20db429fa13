import { InvalidArgumentError, type Lock } from "@distlock/core";

/** What a fenced write reads from a lock. */
export type FencingLock = Pick<Lock, "key" | "fencingToken" | "signal">;

/**
 * The lock's fencing token, checked before any write: a lock without one (a backend whose `capabilities.fencing` is
 * false) cannot fence, and a lock whose hold is already known to be lost throws its `LockLostError` at once.
 */
export function fencingTokenOf(lock: FencingLock): bigint {
  if (typeof lock !== "object" || lock === null) throw new InvalidArgumentError("lock", "must be a Lock from acquire() or tryAcquire()");
  if (lock.fencingToken === null) {
    throw new InvalidArgumentError(
      "lock.fencingToken",
      "is null: this backend gives no fencing tokens (capabilities.fencing is false), so it cannot fence writes",
    );
  }
  if (lock.signal.aborted) throw lock.signal.reason;
  return lock.fencingToken;
}
