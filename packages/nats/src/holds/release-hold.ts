import { deleteIfAt, writeIfAt } from "./conditional-writes.js";
import { type HoldContext, MAX_WRITE_RACES, readHold } from "./hold-context.js";
import { rewriteValue } from "./hold-record.js";

/**
 * Drops one level of the owner's hold with a conditional write on the revision read: count - 1, or at count 1 a
 * conditional delete, whose delete marker is the write the key's watchers wake on. `held: false`, changing nothing,
 * when the key's record is not the owner's.
 */
export async function releaseHold(context: HoldContext, bucketKey: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
  for (let race = 0; race < MAX_WRITE_RACES; race++) {
    const { revision, hold } = await readHold(context, bucketKey);
    if (hold === undefined || hold.record.secret !== ownerSecret) return { held: false, holdCount: 0 };
    const { record } = hold;
    if (record.holdCount === 1) {
      if (!(await deleteIfAt(context, bucketKey, revision))) continue;
      context.observations.forget(bucketKey);
      return { held: true, holdCount: 0 };
    }
    const holdCount = record.holdCount - 1;
    const written = await writeIfAt(context, bucketKey, rewriteValue(record, { holdCount, leaseMs: record.leaseMs }), revision);
    if (written === undefined) continue;
    context.observations.seen(bucketKey, written);
    return { held: true, holdCount };
  }
  throw new Error(`the hold of ${bucketKey} kept changing under ${MAX_WRITE_RACES} releases in a row`);
}

/** Deletes the key's hold whoever holds it, with a conditional delete on the revision read; true if a hold was removed. */
export async function forceReleaseHold(context: HoldContext, bucketKey: string): Promise<boolean> {
  for (let race = 0; race < MAX_WRITE_RACES; race++) {
    const { revision, hold } = await readHold(context, bucketKey);
    if (hold === undefined) return false;
    if (!(await deleteIfAt(context, bucketKey, revision))) continue;
    context.observations.forget(bucketKey);
    return true;
  }
  throw new Error(`the hold of ${bucketKey} kept changing under ${MAX_WRITE_RACES} force-releases in a row`);
}
