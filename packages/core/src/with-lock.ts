import { holdFor } from "./hold-for.js";
import { runAsLockOwner } from "./owner/owner-context.js";
import type { AcquireOptions, Lock, LockProvider } from "./types.js";

/**
 * Acquires `key`, runs `fn(lock, lock.signal)` as the lock's owner (nested acquires re-enter),
 * and releases in `finally`. Stop work when the signal aborts: the hold is gone.
 */
export function withLock<T>(
  provider: LockProvider,
  key: string,
  fn: (lock: Lock, signal: AbortSignal) => Promise<T> | T,
  options?: AcquireOptions,
): Promise<T> {
  return runAsLockOwner(async () => holdFor(await provider.acquire(key, options), fn));
}
