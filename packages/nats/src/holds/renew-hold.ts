import { writeIfAt } from "./conditional-writes.js";
import { type HoldContext, MAX_WRITE_RACES, readHold } from "./hold-context.js";
import { rewriteValue } from "./hold-record.js";

/**
 * Extends the owner's hold with a conditional write on the revision read: a new revision restarts every reader's count
 * of the lease, which becomes the larger of the stored one and `ttlMs` (never shorter). False, changing nothing, when
 * the key's record is not the owner's. A hold whose lease a reader may already count as run out is still renewed if
 * nobody took it: the take-over and the renewal are writes on the same revision, and only one of them succeeds.
 */
export async function renewHold(context: HoldContext, bucketKey: string, ownerSecret: string, ttlMs: number): Promise<boolean> {
  for (let race = 0; race < MAX_WRITE_RACES; race++) {
    const { revision, hold } = await readHold(context, bucketKey);
    if (hold === undefined || hold.record.secret !== ownerSecret) return false;
    const { record } = hold;
    const value = rewriteValue(record, { holdCount: record.holdCount, leaseMs: Math.max(record.leaseMs, ttlMs) });
    const written = await writeIfAt(context, bucketKey, value, revision);
    if (written === undefined) continue;
    context.observations.seen(bucketKey, written);
    return true;
  }
  throw new Error(`the hold of ${bucketKey} kept changing under ${MAX_WRITE_RACES} renewals in a row`);
}
