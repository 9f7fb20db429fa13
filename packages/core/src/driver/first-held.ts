import { compareKeys } from "../options/validate-list.js";
import type { LockState } from "../types.js";

/**
 * For drivers that find key names first and read each key's state after (Redis SCAN): the states of the first
 * `limit` of `keys`, in key order, that `inspect` still shows held, read `limit` keys at a time in parallel.
 */
export async function firstHeld(keys: Iterable<string>, limit: number, inspect: (key: string) => Promise<LockState | null>): Promise<LockState[]> {
  const ordered = [...new Set(keys)].sort(compareKeys);
  const held: LockState[] = [];
  for (let start = 0; start < ordered.length && held.length < limit; start += limit) {
    const states = await Promise.all(ordered.slice(start, start + limit).map(inspect));
    for (const state of states) if (state !== null) held.push(state);
  }
  return held.slice(0, limit);
}
