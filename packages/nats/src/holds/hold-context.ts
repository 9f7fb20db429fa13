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
  readonly ownWrites: OwnWrites;
}

/** A key's state as a hold operation decides from it: its revision (0 when never written) and its hold, if any may run. */
export interface HoldState {
  readonly revision: number;
  readonly hold: LiveHold | undefined;
  /** True when it is this process's own last write of the key, not a read: it may be stale, so it only guides a write. */
  readonly guessed?: boolean;
}

/** Most keys whose last own write a driver remembers; the oldest is forgotten first. */
const MAX_OWN_WRITES = 10_000;

/**
 * The last hold this process wrote of each key, and its revision. An operation of its owner (release, renewal,
 * re-entry) starts from it instead of a read, saving a round trip; its write is conditional on that revision, so a
 * stale guess only costs the read it would have made anyway. A key this process freed is not remembered: taking it
 * again without a read would let a releasing process beat every waiter that has to read first.
 */
export class OwnWrites {
  readonly #byKey = new Map<string, { readonly revision: number; readonly record: HoldRecord }>();

  /** Remembers that this process wrote `record` (none: deleted it) as `revision` of `bucketKey`. */
  wrote(bucketKey: string, revision: number, record: HoldRecord | undefined): void {
    this.#byKey.delete(bucketKey);
    if (record === undefined) return;
    this.#byKey.set(bucketKey, { revision, record });
    if (this.#byKey.size > MAX_OWN_WRITES) this.#byKey.delete(this.#byKey.keys().next().value as string);
  }

  /** The key's state as this process last wrote it, or undefined. */
  guess(context: HoldContext, bucketKey: string): HoldState | undefined {
    const written = this.#byKey.get(bucketKey);
    if (written === undefined) return undefined;
    return { ...stateOf(context, bucketKey, written.revision, written.record), guessed: true };
  }
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
export async function readHold(context: HoldContext, bucketKey: string): Promise<HoldState> {
  const entry: KvEntry | null = await context.kv.get(bucketKey);
  return stateOf(context, bucketKey, entry?.revision ?? 0, holdOf(entry));
}

/** The state of `bucketKey` at `revision` holding `record`, its lease counted from this process's first sight of the revision. */
function stateOf(context: HoldContext, bucketKey: string, revision: number, record: HoldRecord | undefined): HoldState {
  if (record === undefined) {
    context.observations.forget(bucketKey);
    return { revision, hold: undefined };
  }
  const now = performance.now();
  const firstSeenAt = context.observations.seen(bucketKey, revision, now);
  const takeoverInMs = LeaseObservations.remainingMs(record.leaseMs, firstSeenAt, now);
  return { revision, hold: { revision, record, firstSeenAt, takeoverInMs } };
}
