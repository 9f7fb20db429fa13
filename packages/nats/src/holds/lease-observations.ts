/**
 * Rate drift allowed between the holder's clock and a reader's, on top of the drift core already subtracts from the
 * holder's deadline (1 %): a reader counts every lease 2 % longer, plus `TAKEOVER_MARGIN_MS`.
 */
export const TAKEOVER_DRIFT_FACTOR = 0.02;
/** See `TAKEOVER_DRIFT_FACTOR`. */
export const TAKEOVER_MARGIN_MS = 10;

/** How long a reader waits on its own monotonic clock, from first seeing a revision, before that lease has surely run out. */
export function takeoverWaitMs(leaseMs: number): number {
  return Math.ceil(leaseMs * (1 + TAKEOVER_DRIFT_FACTOR)) + TAKEOVER_MARGIN_MS;
}

interface Sighting {
  /** The key's revision, or for an entry of a semaphore record, the version nonce its last write gave it. */
  readonly version: number | string;
  readonly firstSeenAt: number;
}

/**
 * When this process first saw each key's current revision, on its monotonic clock: the lease scheme of AWS's DynamoDB
 * lock client. A hold's lease is judged only from how long one revision has stayed the latest, as this process measured
 * it, never from a timestamp written by another machine. A write of the hold (renewal, re-entry) makes a new revision
 * and restarts the count; a take-over is a conditional write on the revision counted, so it fails if one came between.
 */
export class LeaseObservations {
  readonly #sightings = new Map<string, Sighting>();
  /** The ids seen as entries of one record (a semaphore's grants and places, a line's places), by the record's key. */
  readonly #groups = new Map<string, Set<string>>();

  /**
   * Records that `version` is the latest of what `id` names (a bucket key, a semaphore's grant), and returns the moment
   * it was first seen. `group` names the record the entry belongs to, for `keepOnly`.
   */
  seen(id: string, version: number | string, now = performance.now(), group?: string): number {
    if (group !== undefined) {
      const ids = this.#groups.get(group) ?? new Set<string>();
      ids.add(id);
      this.#groups.set(group, ids);
    }
    const sighting = this.#sightings.get(id);
    if (sighting?.version === version) return sighting.firstSeenAt;
    this.#sightings.set(id, { version, firstSeenAt: now });
    return now;
  }

  /** Forgets every entry of `group` but `ids`: entries that left the record (released, withdrawn) are never seen again. */
  keepOnly(group: string, ids: ReadonlySet<string>): void {
    const seen = this.#groups.get(group);
    if (seen === undefined) return;
    for (const id of seen) {
      if (ids.has(id)) continue;
      seen.delete(id);
      this.#sightings.delete(id);
    }
    if (seen.size === 0) this.#groups.delete(group);
  }

  /** Forgets `id`: it is free, or gone. */
  forget(id: string): void {
    this.#sightings.delete(id);
  }

  /** Milliseconds until a lease of `leaseMs` whose version was first seen at `firstSeenAt` has surely run out (0: it has). */
  static remainingMs(leaseMs: number, firstSeenAt: number, now = performance.now()): number {
    return Math.max(0, firstSeenAt + takeoverWaitMs(leaseMs) - now);
  }
}
