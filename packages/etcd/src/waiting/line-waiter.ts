import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import { abortableSleep } from "@distlock/core/internal";
import type { Etcd3 } from "etcd3";
import { grantedFrom } from "../holds/hold-record.js";
import type { HoldRecords } from "../holds/hold-records.js";
import { encodeMemberValue, newHoldValue } from "../keys/lock-keys.js";
import type { LockKeyspace, QueuePosition } from "../keys/lock-keyspace.js";
import type { MemberLease } from "../leases/member-lease.js";
import type { MemberLeases } from "../leases/member-leases.js";
import type { SessionLease } from "../leases/session-lease.js";
import type { ResolvedEtcdLockOptions } from "../options/etcd-lock-provider-options.js";
import { DeletionWatch } from "./deletion-watch.js";

/** What a waiter shares with the rest of the driver. */
export interface LineWaiterContext {
  readonly client: Etcd3;
  readonly settings: ResolvedEtcdLockOptions;
  readonly keyspace: LockKeyspace;
  readonly session: SessionLease;
  readonly memberLeases: MemberLeases;
  readonly holds: HoldRecords;
}

/** Pause before a waiter retries after etcd failed to answer. */
export const WAIT_RETRY_MS = 200;

/** Go's `Mutex.Lock`: put my member key, then wait for each predecessor's deletion until none is left. */
export class LineWaiter {
  readonly #context: LineWaiterContext;

  constructor(context: LineWaiterContext) {
    this.#context = context;
  }

  /**
   * One place in the queue: enqueue, then wait for each predecessor's deletion until none is left.
   * Undefined if the member key vanished with its lease while waiting (the caller queues again, at the back).
   */
  async wait(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted | undefined> {
    const { client, settings, keyspace } = this.#context;
    const memberLease = await this.#context.memberLeases.allocate(request);
    const member = keyspace.memberKey(request.key, memberLease.lease.id, memberLease.suffix);
    const value = newHoldValue(request);
    if (!memberLease.session) memberLease.lease.startKeepingAlive();
    let revision: bigint | undefined;
    let granted = false;
    let watch: DeletionWatch | undefined;
    try {
      const queued = await keyspace.enqueue(request.key, member, encodeMemberValue(value), memberLease.lease.id);
      revision = queued.revision;
      for (;;) {
        signal.throwIfAborted();
        // etcd not answering (no quorum, leader election) is waited out: whether this waiter's key
        // survived is decided by the next answer, since etcd refreshes leases when a new leader takes over.
        const position: QueuePosition | undefined = await keyspace.position(request.key, member, revision).catch(async () => {
          await abortableSleep(WAIT_RETRY_MS, signal);
          return undefined;
        });
        if (position === undefined) continue;
        if (position.mine === undefined || BigInt(position.mine.create_revision) !== revision) {
          if (memberLease.session && !(await memberLease.lease.keepAlive().catch(() => ({ alive: true }))).alive)
            this.#context.session.discard(memberLease.lease);
          return undefined;
        }
        if (position.predecessor === undefined) {
          granted = true;
          return grantedFrom(this.#context.holds.remember(request, member, revision, position.mine.mod_revision, value, memberLease));
        }
        if (watch === undefined || !watch.key.equals(position.predecessor.key)) {
          watch?.close();
          watch = await DeletionWatch.open(client, position.predecessor.key, settings.requestTimeoutMs).catch(() => undefined);
          // The store moved on before the watch was in place: the predecessor may be gone already, read again.
          if (watch === undefined || watch.fromRevision > position.revision) continue;
        }
        await watch.next(settings.recheckIntervalMs, signal);
      }
    } finally {
      watch?.close();
      if (!memberLease.session) memberLease.lease.stopKeepingAlive();
      if (!granted) await this.#abandon(member, revision, memberLease, request);
    }
  }

  /** Takes a waiter out of the queue: its member key is deleted before the caller hears of the abort, so nobody inherits it. */
  async #abandon(member: Buffer, revision: bigint | undefined, memberLease: MemberLease, request: DriverAcquireRequest): Promise<void> {
    try {
      if (!memberLease.session) await memberLease.lease.revoke();
      else if (revision !== undefined) await this.#context.keyspace.deleteIfCreatedAt(member, revision);
    } catch {
      // etcd is unreachable: the member key goes with its lease (a dedicated one is no longer kept alive).
    } finally {
      if (memberLease.session) this.#context.memberLeases.free(memberLease, request);
    }
  }
}
