import type { LockState } from "@distlock/core/driver";
import { bucketKeys } from "../keys/bucket-keys.js";
import { ALL_LOCK_KEYS, keyOfLockKey, lockKeyPrefix } from "../keys/lock-keys.js";
import type { HoldContext } from "./hold-context.js";
import { inspectLock } from "./inspect-hold.js";

/** How many keys `list` reads at once. */
const READ_BATCH = 32;

/**
 * The held keys under `prefix`, in key order, at least the first `limit`: the bucket's keys (its latest entry per key,
 * delete markers left out) matched against the hex of the prefix, sorted (hex sorts as UTF-8 bytes do), then read one
 * batch at a time until `limit` are held.
 */
export async function listHolds(context: HoldContext, prefix: string, limit: number): Promise<LockState[]> {
  const wanted = lockKeyPrefix(prefix);
  const keys = (await bucketKeys(context.js, context.bucket, ALL_LOCK_KEYS, context.commandTimeoutMs)).filter((bucketKey) => bucketKey.startsWith(wanted));
  keys.sort();
  const states: LockState[] = [];
  for (let start = 0; start < keys.length && states.length < limit; start += READ_BATCH) {
    const batch = keys.slice(start, start + READ_BATCH);
    for (const state of await Promise.all(batch.map((bucketKey) => inspectLock(context, keyOfLockKey(bucketKey))))) if (state !== null) states.push(state);
  }
  return states;
}
