import { changeHold, type HoldWrite } from "./change-hold.js";
import { type HoldContext, MAX_WRITE_RACES } from "./hold-context.js";

const changing = (bucketKey: string, what: string) => () => {
  throw new Error(`the hold of ${bucketKey} kept changing under ${MAX_WRITE_RACES} ${what} in a row`);
};

/**
 * Drops one level of the owner's hold with a conditional write on the revision read: count - 1, or at count 1 a
 * conditional delete, whose delete marker is the write the key's watchers wake on. `held: false`, changing nothing,
 * when the key's record is not the owner's.
 */
export function releaseHold(context: HoldContext, bucketKey: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
  return changeHold<{ held: boolean; holdCount: number }>(
    context,
    bucketKey,
    ({ hold }) => {
      if (hold === undefined || hold.record.secret !== ownerSecret) return { answer: () => ({ held: false, holdCount: 0 }) };
      const { record } = hold;
      const holdCount = record.holdCount - 1;
      const write: HoldWrite = holdCount === 0 ? { kind: "delete" } : { kind: "rewrite", record, holdCount, leaseMs: record.leaseMs };
      return { write, answer: () => ({ held: true, holdCount }) };
    },
    changing(bucketKey, "releases"),
  );
}

/** Deletes the key's hold whoever holds it, with a conditional delete on the revision read; true if a hold was removed. */
export function forceReleaseHold(context: HoldContext, bucketKey: string): Promise<boolean> {
  return changeHold(
    context,
    bucketKey,
    ({ hold }) => (hold === undefined ? { answer: () => false } : { write: { kind: "delete" }, answer: () => true }),
    changing(bucketKey, "force-releases"),
  );
}
