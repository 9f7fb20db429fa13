import { BackendUnavailableError } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { type Etcd3, EtcdLeaseInvalidError, type IKeyValue } from "etcd3";
import type { BackgroundTasks } from "../connection/background-tasks.js";
import { encodeMemberValue, type MemberValue, newHoldValue } from "../keys/lock-keys.js";
import type { LockKeyspace, MemberWrite } from "../keys/lock-keyspace.js";
import { keepAliveDistinct } from "../leases/keep-alive-distinct.js";
import { LeaseKeeper, type LeaseKeeperSettings } from "../leases/lease-keeper.js";
import type { MemberLease } from "../leases/member-lease.js";
import type { MemberLeases } from "../leases/member-leases.js";
import type { SessionLease } from "../leases/session-lease.js";
import { grantedFrom, type HoldRecord, MAX_CAS_ATTEMPTS } from "./hold-record.js";
import type { HoldRecords } from "./hold-records.js";

/** What the taker shares with the rest of the driver. */
export interface HoldTakerContext {
  readonly client: Etcd3;
  readonly settings: LeaseKeeperSettings & { readonly recheckIntervalMs: number };
  readonly keyspace: LockKeyspace;
  readonly session: SessionLease;
  readonly memberLeases: MemberLeases;
  readonly holds: HoldRecords;
  readonly background: BackgroundTasks;
}

/** A new member key for a key this driver does not hold for the owner. */
interface FreshTake {
  readonly request: DriverAcquireRequest;
  readonly memberLease: MemberLease;
  readonly member: Buffer;
  readonly value: MemberValue;
}

/** One more level of a hold this driver knows, on a longer lease when the request asks for more than the key's lease. */
interface Reentry {
  readonly request: DriverAcquireRequest;
  readonly record: HoldRecord;
  readonly value: MemberValue;
  readonly longer: LeaseKeeper | undefined;
}

type Take = FreshTake | Reentry;

/**
 * Takes or re-enters keys for one owner in one txn, all of them or none. A key is taken fresh only if no key at all
 * (holder or waiter) is under its lock prefix, so a take never overtakes a line; a hold the owner has is re-entered
 * (count + 1, same create revision, the longer lease), compared on its mod revision. A key the owner holds through
 * another provider is adopted and the txn tried again, as is a set whose re-entered key a co-owner changed meanwhile.
 */
export class HoldTaker {
  readonly #context: HoldTakerContext;

  constructor(context: HoldTakerContext) {
    this.#context = context;
  }

  /** Every request granted, each as `tryAcquire` grants one, or nothing changed and a refusal. `requests` name distinct keys, none nested in another. */
  async takeAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    const { keyspace, session, settings } = this.#context;
    let sessionRenewed = false;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const planned = this.#plan(requests);
      const takes = planned instanceof Promise ? await planned : planned;
      let kept = false;
      try {
        const outcome = await keyspace.writeAll(takes.map(memberWrite));
        if (outcome.done) {
          kept = true;
          return takes.map((take) => this.#granted(take, outcome.revision));
        }
        if (!this.#learn(takes, outcome.current)) return { acquired: false, retryAfterMs: settings.recheckIntervalMs };
      } catch (error) {
        const onSession = takes.find((take): take is FreshTake => "memberLease" in take && take.memberLease.session);
        if (onSession === undefined || !(error instanceof EtcdLeaseInvalidError) || sessionRenewed) throw error;
        session.discard(onSession.memberLease.lease);
        sessionRenewed = true;
      } finally {
        if (!kept) this.#drop(takes);
      }
    }
    throw new BackendUnavailableError("etcd", `the keys of "${requests.map(({ key }) => key).join('", "')}" kept changing during acquire; try again`);
  }

  /**
   * What each request takes: a re-entry where the owner's hold is known and its lease alive, else a fresh member key.
   * Synchronous when nothing needs etcd first (the common case: a fresh owner, who holds nothing, and a session lease
   * proven recently enough), so the acquire's one txn goes out without a turn through promises.
   */
  #plan(requests: readonly DriverAcquireRequest[]): Take[] | Promise<Take[]> {
    const { holds } = this.#context;
    // A fresh owner's secret was drawn for this acquire alone: no hold of it exists to look up.
    const records = requests.map((request) => (request.freshOwner === true ? undefined : holds.find(request.key, request.ownerSecret)));
    const known = records.flatMap((record) => (record === undefined ? [] : [record.lease]));
    if (known.length === 0) return this.#takes(requests, records);
    return keepAliveDistinct(known).then((alive) =>
      this.#takes(
        requests,
        records.map((record) => (record !== undefined && (alive.has(record.lease) || holds.forget(record)) ? record : undefined)),
      ),
    );
  }

  /** A re-entry of each hold in `held` (its lease just proven alive), a fresh member key for every other request. */
  #takes(requests: readonly DriverAcquireRequest[], held: ReadonlyArray<HoldRecord | undefined>): Take[] | Promise<Take[]> {
    const { session } = this.#context;
    // One proof of the session lease for the whole set, so the keys that go on it do not each send a keepalive.
    const onSession = requests.some((request, i) => held[i] === undefined && request.ttlMs === session.ttlMs);
    const proven = onSession ? session.provenLease() : undefined;
    if (onSession && proven === undefined) return session.lease().then((lease) => this.#takesOn(requests, held, lease));
    return this.#takesOn(requests, held, proven);
  }

  #takesOn(
    requests: readonly DriverAcquireRequest[],
    held: ReadonlyArray<HoldRecord | undefined>,
    sessionLease: LeaseKeeper | undefined,
  ): Take[] | Promise<Take[]> {
    const planned = requests.map((request, i) => {
      const record = held[i];
      return record === undefined ? this.#freshTake(request, sessionLease) : this.#reentry(request, record);
    });
    if (!planned.some((take) => take instanceof Promise)) return planned as Take[];
    return this.#settle(planned);
  }

  /** Every take once its lease is granted; if one fails, what the others allocated is given back. */
  async #settle(planned: ReadonlyArray<Take | Promise<Take>>): Promise<Take[]> {
    const settled = await Promise.allSettled(planned);
    const takes = settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    const failed = settled.find((result) => result.status === "rejected");
    if (failed === undefined) return takes;
    this.#drop(takes);
    throw failed.reason;
  }

  /** A new member key for `request`: on `sessionLease` (proven just now) for the session TTL, else on a lease of its own. */
  #freshTake(request: DriverAcquireRequest, sessionLease: LeaseKeeper | undefined): FreshTake | Promise<FreshTake> {
    const { memberLeases, keyspace } = this.#context;
    const take = (memberLease: MemberLease): FreshTake => ({
      request,
      memberLease,
      member: keyspace.memberKey(request.key, memberLease.lease.id, memberLease.suffix),
      value: newHoldValue(request),
    });
    if (sessionLease !== undefined && request.ttlMs === this.#context.session.ttlMs) return take(memberLeases.onSession(request, sessionLease));
    return memberLeases.allocate(request).then(take);
  }

  /** One more level of `record`; on a lease granted for it when the request asks for more than the key's lease has. */
  #reentry(request: DriverAcquireRequest, record: HoldRecord): Reentry | Promise<Reentry> {
    const { client, settings } = this.#context;
    const reentry = (longer: LeaseKeeper | undefined): Reentry => ({ request, record, value: { ...record.value, count: record.value.count + 1 }, longer });
    if (record.lease.ttlMs >= request.ttlMs) return reentry(undefined);
    return LeaseKeeper.grant(client, request.ttlMs, settings).then(reentry);
  }

  /** The grant of a take that etcd wrote at `revision`, recorded or updated. */
  #granted(take: Take, revision: bigint): DriverGranted {
    const { holds } = this.#context;
    if ("memberLease" in take) return grantedFrom(holds.remember(take.request, take.member, revision, String(revision), take.value, take.memberLease));
    const { record, value, longer, request } = take;
    record.modRevision = String(revision);
    record.value = value;
    if (longer) holds.switchLease(record, longer);
    holds.extendSweep(record, request.ttlMs);
    return grantedFrom(record);
  }

  /**
   * Learns from a refused txn what stood in each take's way: re-entered keys are refreshed (or forgotten once gone),
   * holders this owner has through another provider adopted. False when a key is held or waited for by someone else.
   */
  #learn(takes: readonly Take[], current: ReadonlyArray<IKeyValue | undefined>): boolean {
    const { holds } = this.#context;
    let free = true;
    takes.forEach((take, i) => {
      const now = current[i];
      if (!("memberLease" in take)) {
        if (!holds.refresh(take.record, now)) holds.forget(take.record);
      } else if (now !== undefined && holds.adoptIfOwned(take.request, now) === undefined) free = false;
    });
    return free;
  }

  /** Gives back what takes that did not become holds allocated: session claims, leases of their own. */
  #drop(takes: readonly Take[]): void {
    const { memberLeases, background } = this.#context;
    for (const take of takes) {
      if ("memberLease" in take) memberLeases.free(take.memberLease, take.request);
      else if (take.longer) background.track(take.longer.revoke());
    }
  }
}

/** The txn write of one take: a fresh member key if nobody is under the lock prefix, else the count bumped if unchanged. */
function memberWrite(take: Take): MemberWrite {
  const value = encodeMemberValue(take.value);
  if ("memberLease" in take) return { key: take.request.key, member: take.member, value, leaseId: take.memberLease.lease.id };
  return { key: take.record.key, member: take.record.member, value, leaseId: take.longer?.id, modRevision: take.record.modRevision };
}
