import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { writeIfAt } from "./conditional-writes.js";
import { type HoldContext, MAX_WRITE_RACES, readHold } from "./hold-context.js";
import { grantValue, rewriteValue } from "./hold-record.js";

/**
 * One attempt at a key: a read, then one conditional write on the revision read. A free key (never written, deleted,
 * or a lease that has run out as this process counts it) is granted with a fresh record, whose revision is the new
 * fencing token; the owner's own hold is re-entered (count + 1, the larger lease, the same token); any other live hold
 * refuses until its lease has surely run out. A lost write race reads again.
 */
export async function takeHold(context: HoldContext, bucketKey: string, request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
  const { ownerSecret, holder, ttlMs } = request;
  for (let race = 0; race < MAX_WRITE_RACES; race++) {
    const { revision, hold } = await readHold(context, bucketKey);
    if (hold !== undefined && hold.record.secret === ownerSecret && hold.takeoverInMs > 0) {
      const { record } = hold;
      const leaseMs = Math.max(record.leaseMs, ttlMs);
      const written = await writeIfAt(context, bucketKey, rewriteValue(record, { holdCount: record.holdCount + 1, leaseMs }), revision);
      if (written === undefined) continue;
      context.observations.seen(bucketKey, written);
      return { acquired: true, fencingToken: record.fencingToken, holdCount: record.holdCount + 1, ttlMs: leaseMs };
    }
    if (hold !== undefined && hold.takeoverInMs > 0) return { acquired: false, retryAfterMs: Math.ceil(hold.takeoverInMs) };
    const written = await writeIfAt(context, bucketKey, grantValue(ownerSecret, holder, ttlMs), revision);
    if (written === undefined) continue;
    context.observations.seen(bucketKey, written);
    // The granting write's revision is its stream sequence: greater than every earlier write of the bucket, so greater
    // than every token this key had (each was the revision of an earlier write of it).
    return { acquired: true, fencingToken: BigInt(written), holdCount: 1, ttlMs };
  }
  // Every read was overtaken by another write of the key: it is busy; the waiter is woken by the next write.
  return { acquired: false, retryAfterMs: 1 };
}
