import type { KvEntry } from "@nats-io/kv";
import { type HoldContext, readEntry } from "../holds/hold-context.js";
import { type KeyVersion, versionOf } from "../holds/key-version.js";
import { LeaseObservations } from "../holds/lease-observations.js";
import { type PermitEntry, type SemaphoreRecord, semaphoreOf, semaphoreTokenOf } from "./semaphore-record.js";

/** A semaphore record read now, its lapsed entries left out. */
export interface LiveSemaphore {
  /** The key's revision (0 when never written). */
  readonly revision: number;
  /** The key's latest write, which a change is conditional on. */
  readonly version: KeyVersion;
  /** The highest fencing token the semaphore gave, as its latest write shows it (0 when none). */
  readonly lastToken: bigint;
  /** Whether the key holds a record (even one whose entries all lapsed). */
  readonly exists: boolean;
  /** Grants and places whose leases may still run, in stored order; undefined when the record is gone. */
  readonly record: SemaphoreRecord | undefined;
  /** For every live entry, by owner secret: until its lease has surely run out on this process's count. */
  readonly expiresInMs: ReadonlyMap<string, number>;
  /** For every live grant, by owner secret: the lease left as this process estimates it. */
  readonly leaseLeftMs: ReadonlyMap<string, number>;
}

/**
 * Reads the semaphore under `bucketKey` and leaves out every grant and place whose lease has surely run out: the same
 * count as a lock's (`LeaseObservations`), per entry, on its version nonce, which each write of the entry renews. A
 * write made from this view drops the lapsed entries for good.
 */
export async function readLiveSemaphore(context: HoldContext, bucketKey: string): Promise<LiveSemaphore> {
  return liveSemaphoreOf(context, bucketKey, await readEntry(context, bucketKey));
}

/** The live view of `entry`, a write of the semaphore under `bucketKey` read or delivered by a watch. */
export function liveSemaphoreOf(context: HoldContext, bucketKey: string, entry: KvEntry | null): LiveSemaphore {
  const version = versionOf(entry);
  const { revision } = version;
  const lastToken = semaphoreTokenOf(entry);
  const stored = semaphoreOf(entry);
  const expiresInMs = new Map<string, number>();
  const leaseLeftMs = new Map<string, number>();
  const kept = new Set<string>();
  if (stored === undefined) {
    context.observations.keepOnly(bucketKey, kept);
    return { revision, version, lastToken, exists: false, record: undefined, expiresInMs, leaseLeftMs };
  }
  const now = performance.now();
  const live = (permit: PermitEntry): boolean => {
    const id = `${bucketKey}#${permit.secret}`;
    const firstSeenAt = context.observations.seen(id, permit.version, now, bucketKey);
    // A lapsed entry's sighting is kept while the record still holds it, so that it stays lapsed at the next read.
    kept.add(id);
    const left = LeaseObservations.remainingMs(permit.leaseMs, firstSeenAt, now);
    if (left === 0) return false;
    expiresInMs.set(permit.secret, left);
    leaseLeftMs.set(permit.secret, Math.max(1, Math.min(permit.leaseMs, Math.ceil(permit.leaseMs - (now - firstSeenAt)))));
    return true;
  };
  const record = { permits: stored.permits, grants: stored.grants.filter(live), line: stored.line.filter(live) };
  context.observations.keepOnly(bucketKey, kept);
  return { revision, version, lastToken, exists: entry?.operation === "PUT", record, expiresInMs, leaseLeftMs };
}

/** Permits held by the live grants. */
export function permitsInUse(record: SemaphoreRecord | undefined): number {
  return (record?.grants ?? []).reduce((total, grant) => total + grant.count, 0);
}

/** Whether nobody holds or waits. */
export function isIdle(record: SemaphoreRecord | undefined): boolean {
  return record === undefined || (record.grants.length === 0 && record.line.length === 0);
}

/** The soonest moment, in ms from now, at which an entry other than `except`'s lapses (at least 1). */
export function soonestLapseMs(live: LiveSemaphore, except?: string): number {
  return soonestOf([...live.expiresInMs].filter(([secret]) => secret !== except));
}

/** The soonest moment, in ms from now, at which one of `entries` lapses (at least 1; 1 when there is none). */
export function soonestLapseOfMs(live: LiveSemaphore, entries: readonly PermitEntry[]): number {
  return soonestOf(entries.map(({ secret }) => [secret, live.expiresInMs.get(secret) ?? Number.POSITIVE_INFINITY] as const));
}

function soonestOf(lapses: readonly (readonly [string, number])[]): number {
  let soonest = Number.POSITIVE_INFINITY;
  for (const [, left] of lapses) soonest = Math.min(soonest, left);
  return soonest === Number.POSITIVE_INFINITY ? 1 : Math.max(1, Math.ceil(soonest));
}
