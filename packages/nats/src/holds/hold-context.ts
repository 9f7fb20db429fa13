import type { KV, KvEntry } from "@nats-io/kv";
import type { WriteTarget } from "./conditional-writes.js";
import { type HoldRecord, holdOf } from "./hold-record.js";
import { LeaseObservations } from "./lease-observations.js";

/**
 * How often an operation reads again after its conditional write lost to another write of the same key (a re-entry of
 * the same owner in another process, a renewal, a waiter's take-over) before it gives up on this call.
 */
export const MAX_WRITE_RACES = 5;

/** What every hold operation works on: the bucket, read through `kv` and written through `js`, and this process's sightings of its revisions. */
export interface HoldContext extends WriteTarget {
  readonly kv: KV;
  readonly observations: LeaseObservations;
}

/** A key's latest entry as a hold whose lease may still run, read now. */
export interface LiveHold {
  readonly revision: number;
  readonly record: HoldRecord;
  /** When this process first saw this revision (its monotonic clock). */
  readonly firstSeenAt: number;
  /** Until the lease has surely run out, as this process counts it; 0 once it has. */
  readonly takeoverInMs: number;
}

/** The key's latest entry: its revision (0 when never written) and, while its hold may still run, that hold. */
export async function readHold(context: HoldContext, bucketKey: string): Promise<{ revision: number; hold: LiveHold | undefined }> {
  const entry: KvEntry | null = await context.kv.get(bucketKey);
  const revision = entry?.revision ?? 0;
  const record = holdOf(entry);
  if (record === undefined) {
    context.observations.forget(bucketKey);
    return { revision, hold: undefined };
  }
  const now = performance.now();
  const firstSeenAt = context.observations.seen(bucketKey, revision, now);
  const takeoverInMs = LeaseObservations.remainingMs(record.leaseMs, firstSeenAt, now);
  return { revision, hold: { revision, record, firstSeenAt, takeoverInMs } };
}
