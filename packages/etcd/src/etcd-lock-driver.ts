import {
  abortableSleep,
  BackendUnavailableError,
  type DriverAcquireRequest,
  type DriverAcquireResult,
  type DriverGranted,
  type DriverRenewal,
  type DriverWait,
  type LockCapabilities,
  type LockDriver,
  LockError,
  type LockState,
  monotonicNow,
  ProviderClosedError,
  roundTtl,
} from "@distlock/core";
import { type Etcd3, EtcdLeaseInvalidError, type IKeyValue } from "etcd3";
import { createEtcdClient } from "./create-etcd-client.js";
import { DeletionWatch } from "./deletion-watch.js";
import type { ResolvedEtcdLockProviderOptions } from "./etcd-lock-provider-options.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { decodeMemberValue, encodeMemberValue, type MemberValue, ownerDigest } from "./lock-keys.js";
import { LockKeyspace, type QueuePosition } from "./lock-keyspace.js";
import { SessionLease } from "./session-lease.js";
import { toBackendError } from "./to-backend-error.js";

/** One owner's member key as this driver knows it. */
interface HoldRecord {
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
  sweep: NodeJS.Timeout | undefined;
}

/** The lease a new member key goes on, and the key's slot on it. */
interface LeaseSlot {
  readonly lease: LeaseKeeper;
  readonly session: boolean;
  readonly slot: number;
}

/** How often a compare-and-swap is retried when the key changes underneath (a co-owner re-entering elsewhere). */
const MAX_CAS_ATTEMPTS = 5;
/** Pause before a waiter retries after etcd failed to answer. */
const WAIT_RETRY_MS = 200;
/** Pause before a failed sweep delete is retried. */
const SWEEP_RETRY_MS = 500;

/**
 * etcd's `concurrency.Mutex` as a distlock driver: member keys `<prefix>/<key>/<leaseHex>`, holder =
 * lowest create revision, waiters watch their immediate predecessor, fencing token = create revision.
 * Holds whose TTL equals the session TTL share one session lease; other TTLs get a lease each.
 */
export class EtcdLockDriver implements LockDriver {
  readonly backend = "etcd";
  readonly capabilities: LockCapabilities;
  readonly #settings: ResolvedEtcdLockProviderOptions;
  readonly #client: Etcd3;
  readonly #ownsClient: boolean;
  readonly #keyspace: LockKeyspace;
  readonly #session: SessionLease;
  readonly #holds = new Map<string, HoldRecord>();
  readonly #background = new Set<Promise<unknown>>();
  #closed: Promise<void> | undefined;

  constructor(settings: ResolvedEtcdLockProviderOptions) {
    this.#settings = settings;
    this.capabilities = Object.freeze({
      fencing: true,
      fifo: true,
      serverClock: true,
      minTtlMs: Math.ceil(settings.minTtlMs / 1000) * 1000,
      ttlGranularityMs: 1000,
    });
    this.#client = settings.client ?? createEtcdClient(settings);
    this.#ownsClient = settings.client === undefined;
    this.#keyspace = new LockKeyspace(this.#client, settings.prefix, settings.requestTimeoutMs);
    this.#session = new SessionLease(this.#client, roundTtl(settings.sessionTtlMs, this.capabilities), settings);
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#run("acquire", () => this.#tryAcquire(request));
  }

  async acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    try {
      return await this.#acquire(request, wait.signal);
    } catch (error) {
      if (wait.signal.aborted) throw wait.signal.reason;
      throw this.#failure("acquire", error);
    }
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#run("renew", () => this.#renew(renewals));
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#run("release", () => this.#release(key, ownerSecret));
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#run("inspect", () => this.#inspect(key));
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#run("forceRelease", () => this.#forceRelease(key));
  }

  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const known = this.#holds.get(holdId(request.key, request.ownerSecret));
    const reentered = known && (await this.#reenter(known, request.ttlMs));
    if (reentered) return reentered;
    for (let attempt = 0; ; attempt++) {
      const slot = await this.#leaseFor(request);
      let kept = false;
      try {
        const member = this.#keyspace.memberKey(request.key, slot.lease.id, slot.slot);
        const value: MemberValue = { owner: ownerDigest(request.ownerSecret), holder: request.holder, count: 1 };
        const result = await this.#keyspace.take(request.key, member, encodeMemberValue(value), slot.lease.id);
        if (result.taken) {
          kept = true;
          return this.#granted(this.#remember(request, member, result.revision, String(result.revision), value, slot));
        }
        const byOwner = result.holder && this.#adoptIfOwned(request, result.holder);
        const adopted = byOwner && (await this.#reenter(byOwner, request.ttlMs));
        if (adopted) return adopted;
        // Only core's polling fallback reads retryAfterMs, and this driver waits natively: no LeaseTimeToLive round trip for it.
        return { acquired: false, retryAfterMs: this.#settings.recheckIntervalMs };
      } catch (error) {
        if (!slot.session || !(error instanceof EtcdLeaseInvalidError) || attempt > 0) throw error;
        this.#session.discard(slot.lease);
      } finally {
        if (!kept) this.#dropSlot(slot, request);
      }
    }
  }

  async #acquire(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    const known = this.#holds.get(holdId(request.key, request.ownerSecret));
    const reentered = known && (await this.#reenter(known, request.ttlMs));
    if (reentered) return reentered;
    for (;;) {
      const granted = await this.#queue(request, signal);
      if (granted) return granted;
    }
  }

  /**
   * One place in the queue: enqueue, then wait for each predecessor's deletion until none is left.
   * Undefined if the member key vanished with its lease while waiting (the caller queues again, at the back).
   */
  async #queue(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted | undefined> {
    const slot = await this.#leaseFor(request);
    const member = this.#keyspace.memberKey(request.key, slot.lease.id, slot.slot);
    const value: MemberValue = { owner: ownerDigest(request.ownerSecret), holder: request.holder, count: 1 };
    if (!slot.session) slot.lease.startKeepingAlive();
    let revision: bigint | undefined;
    let granted = false;
    let watch: DeletionWatch | undefined;
    try {
      const queued = await this.#keyspace.enqueue(request.key, member, encodeMemberValue(value), slot.lease.id);
      revision = queued.revision;
      for (;;) {
        signal.throwIfAborted();
        // etcd not answering (no quorum, leader election) is waited out: whether this waiter's key
        // survived is decided by the next answer, since etcd refreshes leases when a new leader takes over.
        const position: QueuePosition | undefined = await this.#keyspace.position(request.key, member, revision).catch(async () => {
          await abortableSleep(WAIT_RETRY_MS, signal);
          return undefined;
        });
        if (position === undefined) continue;
        if (position.mine === undefined || BigInt(position.mine.create_revision) !== revision) {
          if (slot.session && !(await slot.lease.keepAlive().catch(() => ({ alive: true }))).alive) this.#session.discard(slot.lease);
          return undefined;
        }
        if (position.predecessor === undefined) {
          granted = true;
          return this.#granted(this.#remember(request, member, revision, position.mine.mod_revision, value, slot));
        }
        if (watch === undefined || !watch.key.equals(position.predecessor.key)) {
          watch?.close();
          watch = await DeletionWatch.open(this.#client, position.predecessor.key, this.#settings.requestTimeoutMs).catch(() => undefined);
          // The store moved on before the watch was in place: the predecessor may be gone already, read again.
          if (watch === undefined || watch.fromRevision > position.revision) continue;
        }
        await watch.next(this.#settings.recheckIntervalMs, signal);
      }
    } finally {
      watch?.close();
      if (!slot.session) slot.lease.stopKeepingAlive();
      if (!granted) await this.#abandon(member, revision, slot, request);
    }
  }

  async #renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const records = renewals.map((renewal) => this.#holds.get(holdId(renewal.key, renewal.ownerSecret)));
    const present = records.filter((record): record is HoldRecord => record !== undefined);
    const current = await this.#keyspace.getMany(present.map((record) => record.member));
    const live = new Set(present.filter((record, i) => this.#refresh(record, current[i]) || this.#forget(record)));
    const alive = await this.#keepAliveOnce([...live].map((record) => record.lease));
    return Promise.all(
      renewals.map(async (renewal, i) => {
        const record = records[i];
        if (record === undefined || !live.has(record)) return false;
        if (!alive.has(record.lease)) return this.#forget(record);
        if (record.lease.ttlMs < renewal.ttlMs) return this.#moveToNewLease(record, renewal.ttlMs);
        this.#extendSweep(record, renewal.ttlMs);
        return true;
      }),
    );
  }

  async #release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    const record = this.#holds.get(holdId(key, ownerSecret));
    if (record === undefined) return { held: false, holdCount: 0 };
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const remaining = record.value.count - 1;
      const outcome =
        remaining > 0
          ? await this.#keyspace.putIfUnchanged(record.member, record.modRevision, encodeMemberValue({ ...record.value, count: remaining }))
          : await this.#keyspace.deleteIfUnchanged(record.member, record.modRevision);
      if (outcome.done) {
        if (remaining === 0) this.#forget(record);
        record.modRevision = outcome.revision;
        record.value = { ...record.value, count: remaining };
        return { held: true, holdCount: remaining };
      }
      if (!this.#refresh(record, outcome.current)) {
        this.#forget(record);
        return { held: false, holdCount: 0 };
      }
    }
    throw new BackendUnavailableError("etcd", `the key of "${key}" kept changing during release; try again`);
  }

  async #inspect(key: string): Promise<LockState | null> {
    const holder = await this.#keyspace.holder(key);
    if (holder === undefined) return null;
    const value = decodeMemberValue(holder.value);
    const ttlRemainingMs = holder.lease === "0" ? Number.POSITIVE_INFINITY : Math.max(0, await this.#keyspace.leaseTtlSeconds(holder.lease)) * 1000;
    const foreign = `etcd-client:${holder.key.toString("utf8").slice(`${this.#settings.prefix}/${key}/`.length)}`;
    return { key, holder: value?.holder ?? foreign, holdCount: value?.count ?? 1, fencingToken: BigInt(holder.create_revision), ttlRemainingMs };
  }

  async #forceRelease(key: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const holder = await this.#keyspace.holder(key);
      if (holder === undefined) return false;
      if (await this.#keyspace.deleteIfCreatedAt(holder.key, holder.create_revision)) return true;
    }
    throw new BackendUnavailableError("etcd", `the holder of "${key}" kept changing during forceRelease; try again`);
  }

  /** One fresh keepalive per distinct lease, in parallel (a session lease once per batch however many holds share it); the leases etcd still knows. */
  async #keepAliveOnce(leases: readonly LeaseKeeper[]): Promise<Set<LeaseKeeper>> {
    const distinct = [...new Set(leases)];
    const answers = await Promise.all(distinct.map((lease) => lease.keepAlive()));
    return new Set(distinct.filter((_, i) => answers[i]?.alive === true));
  }

  /**
   * Re-enters a hold this driver knows: proves its lease alive, moves the key to a longer lease if
   * the request asks for more, and bumps the count; undefined if the hold turned out to be gone.
   */
  async #reenter(record: HoldRecord, ttlMs: number): Promise<DriverGranted | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { alive } = await record.lease.keepAlive();
      if (!alive) return void this.#forget(record);
      const longer = record.lease.ttlMs < ttlMs ? await LeaseKeeper.grant(this.#client, ttlMs, this.#settings) : undefined;
      const value = { ...record.value, count: record.value.count + 1 };
      const outcome = await this.#keyspace.putIfUnchanged(record.member, record.modRevision, encodeMemberValue(value), longer?.id);
      if (outcome.done) {
        record.modRevision = outcome.revision;
        record.value = value;
        if (longer) this.#switchLease(record, longer);
        this.#extendSweep(record, ttlMs);
        return this.#granted(record);
      }
      if (longer) this.#track(longer.revoke());
      if (!this.#refresh(record, outcome.current)) return void this.#forget(record);
    }
    throw new BackendUnavailableError("etcd", `the key of "${record.key}" kept changing during re-entry; try again`);
  }

  /** A record for a hold some other provider took with the same explicit owner, or undefined if `holder` belongs to someone else. */
  #adoptIfOwned(request: DriverAcquireRequest, holder: IKeyValue): HoldRecord | undefined {
    const value = decodeMemberValue(holder.value);
    const owner = ownerDigest(request.ownerSecret);
    if (value?.owner !== owner) return undefined;
    const id = holdId(request.key, request.ownerSecret);
    const known = this.#holds.get(id);
    if (known && this.#refresh(known, holder)) return known;
    const record: HoldRecord = {
      id,
      key: request.key,
      ownerSecret: request.ownerSecret,
      owner,
      member: holder.key,
      createRevision: BigInt(holder.create_revision),
      modRevision: holder.mod_revision,
      value,
      lease: LeaseKeeper.adopt(this.#client, holder.lease, this.#settings),
      ownsLease: false,
      sessionClaim: false,
      onSession: false,
      expiresAt: Number.POSITIVE_INFINITY,
      sweep: undefined,
    };
    this.#holds.set(record.id, record);
    return record;
  }

  async #moveToNewLease(record: HoldRecord, ttlMs: number): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const lease = await LeaseKeeper.grant(this.#client, ttlMs, this.#settings);
      const outcome = await this.#keyspace.putIfUnchanged(record.member, record.modRevision, encodeMemberValue(record.value), lease.id);
      if (outcome.done) {
        record.modRevision = outcome.revision;
        this.#switchLease(record, lease);
        return true;
      }
      this.#track(lease.revoke());
      if (!this.#refresh(record, outcome.current)) return this.#forget(record);
    }
    return false;
  }

  #switchLease(record: HoldRecord, lease: LeaseKeeper): void {
    if (record.ownsLease) this.#track(record.lease.revoke());
    record.lease = lease;
    record.ownsLease = true;
    record.onSession = false;
    clearTimeout(record.sweep);
  }

  /** Updates `record` from the key as etcd shows it; false if the key is gone or is no longer this owner's incarnation. */
  #refresh(record: HoldRecord, current: IKeyValue | undefined): boolean {
    const value = decodeMemberValue(current?.value);
    if (current === undefined || BigInt(current.create_revision) !== record.createRevision || value?.owner !== record.owner) return false;
    record.modRevision = current.mod_revision;
    record.value = value;
    if (current.lease !== record.lease.id) {
      if (record.ownsLease) this.#track(record.lease.revoke());
      record.lease = LeaseKeeper.adopt(this.#client, current.lease, this.#settings);
      record.ownsLease = false;
      record.onSession = false;
      clearTimeout(record.sweep);
    }
    return true;
  }

  #remember(request: DriverAcquireRequest, member: Buffer, revision: bigint, modRevision: string, value: MemberValue, slot: LeaseSlot): HoldRecord {
    const record: HoldRecord = {
      id: holdId(request.key, request.ownerSecret),
      key: request.key,
      ownerSecret: request.ownerSecret,
      owner: value.owner,
      member,
      createRevision: revision,
      modRevision,
      value,
      lease: slot.lease,
      ownsLease: !slot.session,
      sessionClaim: slot.session,
      onSession: slot.session,
      expiresAt: Number.NEGATIVE_INFINITY,
      sweep: undefined,
    };
    this.#holds.set(record.id, record);
    this.#extendSweep(record, request.ttlMs);
    return record;
  }

  #granted(record: HoldRecord): DriverGranted {
    return {
      acquired: true,
      fencingToken: record.createRevision,
      holdCount: record.value.count,
      ttlMs: record.lease.ttlMs,
      grantedAt: record.lease.confirmedAt,
    };
  }

  /** Forgets a hold locally: stops its sweep, gives back its session claim, revokes its own lease. Returns false for use in filters. */
  #forget(record: HoldRecord): false {
    if (this.#holds.get(record.id) === record) this.#holds.delete(record.id);
    clearTimeout(record.sweep);
    record.onSession = false;
    if (record.sessionClaim) this.#session.unclaim(record.key, record.ownerSecret);
    if (record.ownsLease) this.#track(record.lease.revoke());
    return false;
  }

  /** Session holds outlive their TTL on the server while the session lives, so an unrenewed one is deleted here once its TTL is over. */
  #extendSweep(record: HoldRecord, ttlMs: number): void {
    if (!record.onSession) return;
    record.expiresAt = Math.max(record.expiresAt, monotonicNow() + ttlMs);
    this.#armSweep(record, record.expiresAt - monotonicNow());
  }

  #armSweep(record: HoldRecord, delayMs: number): void {
    clearTimeout(record.sweep);
    record.sweep = setTimeout(() => void this.#sweep(record), Math.max(0, delayMs));
    record.sweep.unref();
  }

  async #sweep(record: HoldRecord): Promise<void> {
    if (!record.onSession || this.#holds.get(record.id) !== record) return;
    if (monotonicNow() < record.expiresAt) return this.#armSweep(record, record.expiresAt - monotonicNow());
    try {
      await this.#keyspace.deleteIfCreatedAt(record.member, record.createRevision);
      this.#forget(record);
    } catch {
      if (this.#closed === undefined) this.#armSweep(record, SWEEP_RETRY_MS);
    }
  }

  async #leaseFor(request: DriverAcquireRequest): Promise<LeaseSlot> {
    if (request.ttlMs !== this.#session.ttlMs) return { lease: await LeaseKeeper.grant(this.#client, request.ttlMs, this.#settings), session: false, slot: 0 };
    const slot = this.#session.claim(request.key, request.ownerSecret);
    try {
      return { lease: await this.#session.lease(), session: true, slot };
    } catch (error) {
      this.#session.unclaim(request.key, request.ownerSecret);
      throw error;
    }
  }

  #dropSlot(slot: LeaseSlot, request: DriverAcquireRequest): void {
    if (slot.session) {
      if (this.#holds.get(holdId(request.key, request.ownerSecret))?.sessionClaim !== true) this.#session.unclaim(request.key, request.ownerSecret);
    } else {
      this.#track(slot.lease.revoke());
    }
  }

  /** Takes a waiter out of the queue: its member key is deleted before the caller hears of the abort, so nobody inherits it. */
  async #abandon(member: Buffer, revision: bigint | undefined, slot: LeaseSlot, request: DriverAcquireRequest): Promise<void> {
    try {
      if (!slot.session) await slot.lease.revoke();
      else if (revision !== undefined) await this.#keyspace.deleteIfCreatedAt(member, revision);
    } catch {
      // etcd is unreachable: the member key goes with its lease (a dedicated one is no longer kept alive).
    } finally {
      if (slot.session) this.#dropSlot(slot, request);
    }
  }

  #track(operation: Promise<unknown>): void {
    const settled = operation.catch(() => undefined);
    this.#background.add(settled);
    void settled.finally(() => this.#background.delete(settled));
  }

  async #run<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#failure(operation, error);
    }
  }

  /** The error a failed call rejects with; a call cut off by `close()` says so instead of blaming etcd. */
  #failure(operation: string, error: unknown): unknown {
    if (this.#closed !== undefined && !LockError.is(error)) return new ProviderClosedError(this.backend);
    return toBackendError(operation, error, this.#settings.hosts);
  }

  async #shutdown(): Promise<void> {
    const records = [...this.#holds.values()];
    for (const record of records) clearTimeout(record.sweep);
    this.#holds.clear();
    await Promise.allSettled([this.#session.close(), ...records.filter((r) => r.ownsLease).map((r) => r.lease.revoke())]);
    await Promise.allSettled([...this.#background]);
    if (this.#ownsClient) this.#client.close();
  }
}

function holdId(key: string, ownerSecret: string): string {
  return `${key}\u0000${ownerSecret}`;
}
