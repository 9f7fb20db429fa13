import type { DriverAcquireRequest } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import type { Etcd3, IKeyValue } from "etcd3";
import type { BackgroundTasks } from "../connection/background-tasks.js";
import { decodeMemberValue, type MemberValue, ownerDigest } from "../keys/lock-keys.js";
import type { LockKeyspace } from "../keys/lock-keyspace.js";
import { LeaseKeeper, type LeaseKeeperSettings } from "../leases/lease-keeper.js";
import type { MemberLease } from "../leases/member-lease.js";
import type { SessionLease } from "../leases/session-lease.js";
import { type HoldRecord, holdId } from "./hold-record.js";

/** What the hold records share with the rest of the driver. */
export interface HoldRecordsContext {
  readonly client: Etcd3;
  readonly settings: LeaseKeeperSettings;
  readonly keyspace: LockKeyspace;
  readonly session: SessionLease;
  readonly background: BackgroundTasks;
}

/** Pause before a failed sweep delete is retried. */
const SWEEP_RETRY_MS = 500;

/**
 * The holds this driver knows, by key and owner, kept in step with etcd: which lease each member key
 * is on, and the sweep that deletes an unrenewed hold on the session lease once its own TTL is over.
 */
export class HoldRecords {
  readonly #context: HoldRecordsContext;
  readonly #holds = new Map<string, HoldRecord>();
  /** One timer sweeps every session hold, armed for `#sweepAt` (monotonic ms); see `#sweepBy`. */
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweepAt = Number.POSITIVE_INFINITY;
  #closed = false;

  constructor(context: HoldRecordsContext) {
    this.#context = context;
  }

  find(key: string, ownerSecret: string): HoldRecord | undefined {
    return this.#holds.get(holdId(key, ownerSecret));
  }

  /** Records a hold this driver just took, on `memberLease`'s lease, and starts its sweep if that lease is the session's. */
  remember(request: DriverAcquireRequest, member: Buffer, revision: bigint, modRevision: string, value: MemberValue, memberLease: MemberLease): HoldRecord {
    const record: HoldRecord = {
      id: holdId(request.key, request.ownerSecret),
      key: request.key,
      ownerSecret: request.ownerSecret,
      owner: value.owner,
      member,
      createRevision: revision,
      modRevision,
      value,
      lease: memberLease.lease,
      ownsLease: !memberLease.session,
      sessionClaim: memberLease.claimed,
      onSession: memberLease.session,
      expiresAt: Number.NEGATIVE_INFINITY,
      sweeping: false,
      fresh: request.freshOwner === true,
      deleting: false,
    };
    this.#holds.set(record.id, record);
    this.extendSweep(record, request.ttlMs);
    return record;
  }

  /** A record for a hold some other provider took with the same explicit owner, or undefined if `holder` belongs to someone else. */
  adoptIfOwned(request: DriverAcquireRequest, holder: IKeyValue): HoldRecord | undefined {
    const value = decodeMemberValue(holder.value);
    const owner = ownerDigest(request.ownerSecret);
    if (value?.owner !== owner) return undefined;
    const id = holdId(request.key, request.ownerSecret);
    const known = this.#holds.get(id);
    if (known && this.refresh(known, holder)) return known;
    const record: HoldRecord = {
      id,
      key: request.key,
      ownerSecret: request.ownerSecret,
      owner,
      member: holder.key,
      createRevision: BigInt(holder.create_revision),
      modRevision: holder.mod_revision,
      value,
      lease: LeaseKeeper.adopt(this.#context.client, holder.lease, this.#context.settings),
      ownsLease: false,
      sessionClaim: false,
      onSession: false,
      expiresAt: Number.POSITIVE_INFINITY,
      sweeping: false,
      fresh: false,
      deleting: false,
    };
    this.#holds.set(record.id, record);
    return record;
  }

  /** Updates `record` from the key as etcd shows it; false if the key is gone or is no longer this owner's incarnation. */
  refresh(record: HoldRecord, current: IKeyValue | undefined): boolean {
    const value = decodeMemberValue(current?.value);
    if (current === undefined || BigInt(current.create_revision) !== record.createRevision || value?.owner !== record.owner) return false;
    record.modRevision = current.mod_revision;
    record.value = value;
    if (current.lease !== record.lease.id) {
      if (record.ownsLease) this.#context.background.track(record.lease.revoke());
      record.lease = LeaseKeeper.adopt(this.#context.client, current.lease, this.#context.settings);
      record.ownsLease = false;
      record.onSession = false;
    }
    return true;
  }

  /** Forgets a hold locally: stops its sweep, gives back its session claim, revokes its own lease. Returns false for use in filters. */
  forget(record: HoldRecord): false {
    if (this.#holds.get(record.id) === record) this.#holds.delete(record.id);
    record.onSession = false;
    // The rest waits for the answer to the delete under way (see `deleteFresh`).
    if (record.deleting) return false;
    if (record.sessionClaim) this.#context.session.unclaim(record.key, record.ownerSecret);
    if (record.ownsLease) this.#context.background.track(record.lease.revoke());
    return false;
  }

  /**
   * Deletes the member key of a fresh owner's hold without a condition, as nobody else writes it (`HoldRecord.fresh`),
   * and forgets the hold. Its session claim (the key's name) is given back only once etcd answered, so no later hold of
   * this driver reuses the name while the delete may still land. True if the key was there to delete. On a failure the
   * hold stays known, as after a failed conditional release.
   */
  async deleteFresh(record: HoldRecord): Promise<boolean> {
    record.deleting = true;
    let deleted: boolean;
    try {
      deleted = await this.#context.keyspace.deleteMember(record.member);
    } catch (error) {
      record.deleting = false;
      if (this.#holds.get(record.id) !== record) this.forget(record);
      throw error;
    }
    record.deleting = false;
    this.forget(record);
    return deleted;
  }

  /** Moves `record` to a lease of its own (after etcd moved the key there); its previous own lease is revoked. */
  switchLease(record: HoldRecord, lease: LeaseKeeper): void {
    if (record.ownsLease) this.#context.background.track(record.lease.revoke());
    record.lease = lease;
    record.ownsLease = true;
    record.onSession = false;
  }

  /** Session holds outlive their TTL on the server while the session lives, so an unrenewed one is deleted here once its TTL is over. */
  extendSweep(record: HoldRecord, ttlMs: number): void {
    if (!record.onSession) return;
    record.expiresAt = Math.max(record.expiresAt, monotonicNow() + ttlMs);
    this.#sweepBy(record.expiresAt);
  }

  /** Stops the sweep and forgets every hold; returns the holds it had. */
  close(): HoldRecord[] {
    this.#closed = true;
    clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    const records = [...this.#holds.values()];
    this.#holds.clear();
    return records;
  }

  /**
   * Arms the sweep for `at`, unless it already runs by then: each sweep arms the next for the earliest hold still to
   * expire, so holds taken and released over and over cost no timer each, and none outlives its TTL unswept.
   */
  #sweepBy(at: number): void {
    if (this.#closed || (this.#sweepTimer !== undefined && this.#sweepAt <= at)) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = at;
    this.#sweepTimer = setTimeout(() => this.#sweepDue(), Math.max(0, at - monotonicNow()));
    this.#sweepTimer.unref();
  }

  /** Deletes every session hold whose TTL is over, and arms the sweep for the next one to expire. */
  #sweepDue(): void {
    this.#sweepTimer = undefined;
    const now = monotonicNow();
    let next = Number.POSITIVE_INFINITY;
    for (const record of this.#holds.values()) {
      if (!record.onSession || record.sweeping || record.deleting) continue;
      if (record.expiresAt <= now) void this.#sweep(record);
      else next = Math.min(next, record.expiresAt);
    }
    if (next < Number.POSITIVE_INFINITY) this.#sweepBy(next);
  }

  async #sweep(record: HoldRecord): Promise<void> {
    record.sweeping = true;
    try {
      await this.#context.keyspace.deleteIfCreatedAt(record.member, record.createRevision);
      this.forget(record);
    } catch {
      this.#sweepBy(monotonicNow() + SWEEP_RETRY_MS);
    } finally {
      record.sweeping = false;
    }
  }
}
