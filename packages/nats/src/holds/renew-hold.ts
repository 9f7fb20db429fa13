import { changeHold } from "./change-hold.js";
import { type HoldContext, MAX_WRITE_RACES } from "./hold-context.js";

/**
 * Extends the owner's hold with a conditional write on the revision read: a new revision restarts every reader's count
 * of the lease, which becomes the larger of the stored one and `ttlMs` (never shorter). False, changing nothing, when
 * the key's record is not the owner's. A hold whose lease a reader may already count as run out is still renewed if
 * nobody took it: the take-over and the renewal are writes on the same revision, and only one of them succeeds.
 */
export function renewHold(context: HoldContext, bucketKey: string, ownerSecret: string, ttlMs: number): Promise<boolean> {
  return changeHold(
    context,
    bucketKey,
    ({ hold }) => {
      if (hold === undefined || hold.record.secret !== ownerSecret) return { answer: () => false };
      const { record } = hold;
      return { write: { kind: "rewrite", record, holdCount: record.holdCount, leaseMs: Math.max(record.leaseMs, ttlMs) }, answer: () => true };
    },
    () => {
      throw new Error(`the hold of ${bucketKey} kept changing under ${MAX_WRITE_RACES} renewals in a row`);
    },
  );
}
