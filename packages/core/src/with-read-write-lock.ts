import { holdFor } from "./hold-for.js";
import { runAsLockOwner } from "./owner/owner-context.js";
import type { ReadWriteAccess, ReadWriteAcquireOptions, ReadWriteHold, ReadWriteLock } from "./types.js";

/** What `withReadLock` and `withWriteLock` run: `fn` given the hold and its signal. */
export type ReadWriteWork<T> = (hold: ReadWriteHold, signal: AbortSignal) => Promise<T> | T;

/**
 * Takes `lock`'s read side, runs `fn(hold, hold.signal)` as the hold's owner (nested reads re-enter) and releases in
 * `finally`. Stop work when the signal aborts: the hold is gone.
 */
export function withReadLock<T>(lock: ReadWriteLock, fn: ReadWriteWork<T>, options?: ReadWriteAcquireOptions): Promise<T> {
  return holdSide(lock.read, fn, options);
}

/**
 * Takes `lock`'s write side, runs `fn(hold, hold.signal)` as the hold's owner (nested reads and writes re-enter) and
 * releases in `finally`. Stop work when the signal aborts: the hold is gone.
 */
export function withWriteLock<T>(lock: ReadWriteLock, fn: ReadWriteWork<T>, options?: ReadWriteAcquireOptions): Promise<T> {
  return holdSide(lock.write, fn, options);
}

function holdSide<T>(side: ReadWriteAccess, fn: ReadWriteWork<T>, options: ReadWriteAcquireOptions | undefined): Promise<T> {
  return runAsLockOwner(async () => holdFor(await side.acquire(options), fn));
}
