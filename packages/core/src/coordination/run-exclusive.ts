import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LockError } from "../errors/lock-error.js";
import { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
import { runAsLockOwner } from "../owner/owner-context.js";
import { abortableSleep } from "../time/abortable-sleep.js";
import { monotonicNow } from "../time/monotonic.js";
import type { LockProvider } from "../types.js";

/** How long a run-once job keeps its lock (ShedLock's semantics). */
export interface RunExclusiveOptions {
  /** The lease: the lock is never held longer, even if the job hangs or the process dies. */
  lockAtMostFor: number;
  /** Hold at least this long even if the job is quick, so nodes whose schedules are skewed don't run it again. @default 0 */
  lockAtLeastFor?: number;
}

/** Whether this node ran the job; `overran` when the job outlived `lockAtMostFor` (its signal aborted). */
export type RunExclusiveResult<T> = { ran: true; value: T; overran: boolean } | { ran: false };

/**
 * Runs `fn` only if no other node is running the job `name`; skips (no waiting) otherwise.
 * The job's signal aborts when `lockAtMostFor` runs out. Resolves once the lock is released.
 */
export async function runExclusive<T>(
  provider: LockProvider,
  name: string,
  fn: (signal: AbortSignal) => Promise<T> | T,
  options: RunExclusiveOptions,
): Promise<RunExclusiveResult<T>> {
  validateKey(name);
  const { lockAtMostFor, lockAtLeastFor = 0 } = options;
  validateAcquireOptions({ ttlMs: lockAtMostFor });
  if (!Number.isFinite(lockAtLeastFor) || lockAtLeastFor < 0 || lockAtLeastFor > lockAtMostFor) {
    throw new InvalidArgumentError("options.lockAtLeastFor", "must be a number from 0 to lockAtMostFor");
  }
  const startedAt = monotonicNow();
  const lock = await provider.tryAcquire(name, { ttlMs: lockAtMostFor, autoRenew: false });
  if (lock === null) return { ran: false };
  try {
    const value = await runAsLockOwner(() => fn(lock.signal));
    return { ran: true, value, overran: lock.signal.aborted };
  } finally {
    await abortableSleep(lockAtLeastFor - (monotonicNow() - startedAt), lock.signal);
    await lock.release().catch((error: unknown) => {
      if (!LockError.is(error, "LOCK_LOST")) throw error;
    });
  }
}
