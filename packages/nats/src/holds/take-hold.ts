import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { changeHold, type HoldChange, type StoredHold } from "./change-hold.js";
import type { HoldContext, HoldState } from "./hold-context.js";
import type { HoldRecord } from "./hold-record.js";

/**
 * One attempt at a key: one conditional write on the revision read. A free key (never written, deleted, or a lease
 * that has run out as this process counts it) is granted with a fresh record, whose revision is the new fencing token;
 * the owner's own hold is re-entered (count + 1, the larger lease, the same token); any other live hold refuses until
 * its lease has surely run out.
 */
export function takeHold(context: HoldContext, bucketKey: string, request: DriverAcquireRequest, first?: HoldState): Promise<DriverGranted | DriverRefused> {
  const { ownerSecret, holder, ttlMs } = request;
  return changeHold<DriverGranted | DriverRefused>(
    context,
    bucketKey,
    ({ hold }): HoldChange<DriverGranted | DriverRefused> => {
      if (hold !== undefined && hold.takeoverInMs > 0) {
        const { record } = hold;
        if (record.secret !== ownerSecret) return { answer: () => ({ acquired: false, retryAfterMs: Math.ceil(hold.takeoverInMs) }) };
        const leaseMs = Math.max(record.leaseMs, ttlMs);
        return {
          write: { kind: "rewrite", record, holdCount: record.holdCount + 1, leaseMs },
          answer: (): DriverGranted => ({ acquired: true, fencingToken: record.fencingToken, holdCount: record.holdCount + 1, ttlMs: leaseMs }),
        };
      }
      return {
        write: { kind: "grant", secret: ownerSecret, holder, leaseMs: ttlMs },
        // The grant's token is above the key's token before it (`grantToken`), which is above every earlier one.
        answer: ({ record }: StoredHold): DriverGranted => ({ acquired: true, fencingToken: (record as HoldRecord).fencingToken, holdCount: 1, ttlMs }),
      };
    },
    // Every read was overtaken by another write of the key: it is busy; the waiter is woken by the next write.
    () => ({ acquired: false, retryAfterMs: 1 }),
    first,
  );
}
