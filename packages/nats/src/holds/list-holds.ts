import type { LockState } from "@distlock/core/driver";
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
  const bucketKeys: string[] = [];
  for await (const bucketKey of await context.kv.keys(ALL_LOCK_KEYS)) if (bucketKey.startsWith(wanted)) bucketKeys.push(bucketKey);
  bucketKeys.sort();
  const states: LockState[] = [];
  for (let start = 0; start < bucketKeys.length && states.length < limit; start += READ_BATCH) {
    const batch = bucketKeys.slice(start, start + READ_BATCH);
    for (const state of await Promise.all(batch.map((bucketKey) => inspectLock(context, keyOfLockKey(bucketKey))))) if (state !== null) states.push(state);
  }
  return states;
}
