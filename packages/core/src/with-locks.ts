import { holdFor } from "./hold-for.js";
import { runAsLockOwner } from "./owner/owner-context.js";
import type { AcquireOptions, LockProvider, MultiLock } from "./types.js";

/**
 * Acquires every key of `keys`, all or none (`provider.acquireAll`), runs `fn(locks, locks.signal)` as their owner
 * (nested acquires of those keys re-enter), and releases them all in `finally`. Stop work when the signal aborts: one of
 * the holds is gone.
 */
export function withLocks<T>(
  provider: LockProvider,
  keys: readonly string[],
  fn: (locks: MultiLock, signal: AbortSignal) => Promise<T> | T,
  options?: AcquireOptions,
): Promise<T> {
  return runAsLockOwner(async () => holdFor(await provider.acquireAll(keys, options), fn));
}
