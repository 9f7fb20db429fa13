import type { LockState } from "@distlock/core/driver";
import { keyOfLockKey, lineKey, lockKey } from "../keys/lock-keys.js";
import { readLiveSemaphore } from "../semaphore/live-semaphore.js";
import { type HoldContext, readHold } from "./hold-context.js";

/**
 * The key's hold as this process sees it, or null when it is free or its lease has surely run out. The lease left is
 * an estimate (`serverClock` is false): the lease less the time since this process first saw the revision, so a
 * process that has just looked shows the whole lease.
 */
export async function inspectHold(context: HoldContext, bucketKey: string): Promise<LockState | null> {
  const { hold } = await readHold(context, bucketKey);
  if (hold === undefined || hold.takeoverInMs === 0) return null;
  const { holder, holdCount, fencingToken, leaseMs } = hold.record;
  const ttlRemainingMs = Math.max(1, Math.ceil(leaseMs - (performance.now() - hold.firstSeenAt)));
  return { key: keyOfLockKey(bucketKey), holder, holdCount, fencingToken, ttlRemainingMs: Math.min(leaseMs, ttlRemainingMs), waiters: 0 };
}

/** The lock `key` as `inspect` shows it: its hold (`inspectHold`) and the live places in its line of waiters. */
export async function inspectLock(context: HoldContext, key: string): Promise<LockState | null> {
  const [state, line] = await Promise.all([inspectHold(context, lockKey(key)), readLiveSemaphore(context, lineKey(key))]);
  return state === null ? null : { ...state, waiters: line.record?.line.length ?? 0 };
}
