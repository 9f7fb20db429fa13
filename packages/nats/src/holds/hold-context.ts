import type { KV, KvEntry } from "@nats-io/kv";
import { retryRequest } from "../connection/retry-request.js";
import type { WriteTarget } from "./conditional-writes.js";
import { type HoldRecord, holdOf, lastTokenOf } from "./hold-record.js";
import { type KeyVersion, leaseVersionOf, versionOf } from "./key-version.js";
import { LeaseObservations } from "./lease-observations.js";

/**
 * How often an operation reads again after its conditional write lost to another write of the same key (a re-entry of
 * the same owner in another process, a renewal, a waiter's take-over) before it gives up on this call.
 */
export const MAX_WRITE_RACES = 5;

/** What every hold operation works on: the bucket, read through `kv` and written through `js`, and this process's sightings of its writes. */
export interface HoldContext extends WriteTarget {
  readonly kv: KV;
  readonly observations: LeaseObservations;
  readonly ownWrites: OwnWrites;
}

/** A key's state as a hold operation decides from it: its latest write, its token, and its hold, if any may run. */
export interface HoldState {
  readonly version: KeyVersion;
  /** The key's fencing token as its latest write shows it (a hold's, or the one a release kept; 0 when none). */
  readonly lastToken: bigint;
  readonly hold: LiveHold | undefined;
  /** True when it is this process's own last write of the key, not a read: it may be stale, so it only guides a write. */
  readonly guessed?: boolean;
}

/** Most keys whose last own write a driver remembers; the oldest is forgotten first. */
const MAX_OWN_WRITES = 10_000;

/**
 * The last hold this process wrote of each key, and its version. An operation of its owner (release, renewal,
 * re-entry) starts from it instead of a read, saving a round trip; its write is conditional on that revision, so a
 * stale guess only costs the read it would have made anyway. A key this process freed is not remembered: taking it
 * again without a read would let a releasing process beat every waiter that has to read first.
 */
export class OwnWrites {
  readonly #byKey = new Map<string, { readonly version: KeyVersion; readonly record: HoldRecord }>();

  /** Remembers that this process wrote `record` (none: deleted it) as `version` of `bucketKey`. */
  wrote(bucketKey: string, version: KeyVersion, record: HoldRecord | undefined): void {
    this.#byKey.delete(bucketKey);
    if (record === undefined) return;
    this.#byKey.set(bucketKey, { version, record });
    if (this.#byKey.size > MAX_OWN_WRITES) this.#byKey.delete(this.#byKey.keys().next().value as string);
  }

  /** The key's state as this process last wrote it, or undefined. */
  guess(context: HoldContext, bucketKey: string): HoldState | undefined {
    const written = this.#byKey.get(bucketKey);
    if (written === undefined) return undefined;
    return { ...stateOf(context, bucketKey, written.version, written.record, written.record.fencingToken), guessed: true };
  }
}

/** A key's latest entry as a hold whose lease may still run, read now. */
export interface LiveHold {
  readonly revision: number;
  readonly record: HoldRecord;
  /** When this process first saw this write (its monotonic clock). */
  readonly firstSeenAt: number;
  /** Until the lease has surely run out, as this process counts it; 0 once it has. */
  readonly takeoverInMs: number;
}

/** Reads `bucketKey`'s latest entry, trying again while the stream does not answer, within `commandTimeoutMs`. */
export function readEntry(context: WriteTarget, bucketKey: string): Promise<KvEntry | null> {
  return retryRequest(context.commandTimeoutMs, () => context.attemptKv.get(bucketKey));
}

/** The key's latest write and, while its hold may still run, that hold. */
export async function readHold(context: HoldContext, bucketKey: string): Promise<HoldState> {
  const entry = await readEntry(context, bucketKey);
  return stateOf(context, bucketKey, versionOf(entry), holdOf(entry), lastTokenOf(entry));
}

/** The state of `bucketKey` at `version` holding `record`, its lease counted from this process's first sight of that write. */
function stateOf(context: HoldContext, bucketKey: string, version: KeyVersion, record: HoldRecord | undefined, lastToken: bigint): HoldState {
  if (record === undefined) {
    context.observations.forget(bucketKey);
    return { version, lastToken, hold: undefined };
  }
  const now = performance.now();
  const firstSeenAt = context.observations.seen(bucketKey, leaseVersionOf(version), now);
  const takeoverInMs = LeaseObservations.remainingMs(record.leaseMs, firstSeenAt, now);
  return { version, lastToken, hold: { revision: version.revision, record, firstSeenAt, takeoverInMs } };
}
