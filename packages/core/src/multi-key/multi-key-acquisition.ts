import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock, MultiLock } from "../types.js";
import { MultiLockHandle } from "./multi-lock-handle.js";

/** How one key of a multi-key call is taken: the provider's own single-key path, for a request it was given. */
export interface SingleKeyPath {
  /** The request for `key` on behalf of the call's one owner; throws if the provider closed or the signal aborted. */
  request(key: string): DriverAcquireRequest;
  acquire(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock>;
  tryAcquire(request: DriverAcquireRequest, settings: AcquireOptions): Promise<Lock | null>;
}

/**
 * All or none of `keys` (already in the global order), one at a time in that order: a caller waits for a key only
 * while holding keys that sort before it, so no two callers can each hold what the other waits for. The time budget
 * spans the whole call; whatever stops it midway (timeout, abort, close, failure) releases the keys taken so far.
 */
export async function acquireInOrder(keys: readonly string[], settings: AcquireOptions, path: SingleKeyPath): Promise<MultiLock> {
  const startedAt = monotonicNow();
  const deadline = settings.waitMs === undefined ? undefined : startedAt + settings.waitMs;
  const locks: Lock[] = [];
  try {
    for (const key of keys) {
      const waitMs = deadline === undefined ? undefined : Math.max(0, deadline - monotonicNow());
      locks.push(await path.acquire(path.request(key), { ...settings, waitMs }));
    }
    return new MultiLockHandle(locks);
  } catch (error) {
    await releaseTaken(locks);
    if (!LockError.is(error, LockErrorCode.LockTimeout)) throw error;
    throw new LockTimeoutError((error as LockTimeoutError).key, monotonicNow() - startedAt);
  }
}

/** One attempt at each of `keys` in the global order, never waiting: all of them, or null with none left held. */
export async function tryInOrder(keys: readonly string[], settings: AcquireOptions, path: SingleKeyPath): Promise<MultiLock | null> {
  const locks: Lock[] = [];
  try {
    for (const key of keys) {
      const lock = await path.tryAcquire(path.request(key), settings);
      if (lock === null) {
        await releaseTaken(locks);
        return null;
      }
      locks.push(lock);
    }
    return new MultiLockHandle(locks);
  } catch (error) {
    await releaseTaken(locks);
    throw error;
  }
}

/** Gives back what an abandoned call took; a release that fails leaves that key to its lease, which is no longer renewed. */
async function releaseTaken(locks: readonly Lock[]): Promise<void> {
  await Promise.allSettled(locks.map((lock) => lock.release()));
}
