import type { DriverGranted } from "@distlock/core/driver";
import type { MemberValue } from "../keys/lock-keys.js";
import type { LeaseKeeper } from "../leases/lease-keeper.js";

/** One owner's member key as the driver knows it. */
export interface HoldRecord {
  readonly id: string;
  readonly key: string;
  readonly ownerSecret: string;
  readonly owner: string;
  readonly member: Buffer;
  readonly createRevision: bigint;
  modRevision: string;
  value: MemberValue;
  lease: LeaseKeeper;
  /** A lease granted for this hold alone, revoked with it. */
  ownsLease: boolean;
  /** The member key is the session's (named after the session lease): its claim is given back with the hold. */
  readonly sessionClaim: boolean;
  /** The key sits on the session lease, which outlives the hold, so the driver deletes it itself once `expiresAt` passes unrenewed. */
  onSession: boolean;
  expiresAt: number;
  /** The sweep's delete of the key is under way. */
  sweeping: boolean;
  /** Taken for a fresh owner, whose secret was drawn for that acquire alone: no other acquire can re-enter it or write its key. */
  readonly fresh: boolean;
  /** An unconditional delete of the key is under way (`HoldRecords.deleteFresh`). */
  deleting: boolean;
}

/** How often a compare-and-swap is retried when the key changes underneath (a co-owner re-entering elsewhere). */
export const MAX_CAS_ATTEMPTS = 5;

/** The id of one owner's hold of `key`. */
export function holdId(key: string, ownerSecret: string): string {
  return `${key}\u0000${ownerSecret}`;
}

/** What the driver answers for a hold it granted or re-entered. */
export function grantedFrom(record: HoldRecord): DriverGranted {
  return {
    acquired: true,
    fencingToken: record.createRevision,
    holdCount: record.value.count,
    ttlMs: record.lease.ttlMs,
    grantedAt: record.lease.confirmedAt,
  };
}
