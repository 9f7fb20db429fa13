import type { DriverGranted, DriverPermitRequest } from "@distlock/core/driver";
import { abortableSleep } from "@distlock/core/internal";
import { type Etcd3, EtcdLeaseInvalidError } from "etcd3";
import type { HoldRecords } from "../holds/hold-records.js";
import type { MemberLease } from "../leases/member-lease.js";
import type { MemberLeases } from "../leases/member-leases.js";
import type { SessionLease } from "../leases/session-lease.js";
import type { ResolvedEtcdLockOptions } from "../options/etcd-lock-provider-options.js";
import { WAIT_RETRY_MS } from "../waiting/line-waiter.js";
import { joinLine, type PermitEntry, permitEntry } from "./join-line.js";
import { LineWatch } from "./line-watch.js";
import { permitGrantedFrom } from "./permit-granted.js";
import { findEntry, holdersOf, type PermitLine } from "./permit-line.js";
import type { SemaphoreKeyspace } from "./semaphore-keyspace.js";

/** What a permit waiter shares with the rest of the semaphore driver. */
export interface PermitWaiterContext {
  readonly client: Etcd3;
  readonly settings: ResolvedEtcdLockOptions;
  readonly keyspace: SemaphoreKeyspace;
  readonly session: SessionLease;
  readonly memberLeases: MemberLeases;
  readonly holds: HoldRecords;
}

/** A waiter joins the line, whatever it holds, until its abort. */
const ALWAYS = () => true;

/**
 * Waits in a semaphore's line: joins it (one txn), then sleeps on a watch of the line until the deletions ahead of its
 * key have freed enough permits, and confirms with one read. Granted keys are the front of the line, so nobody passes it.
 */
export class PermitWaiter {
  readonly #context: PermitWaiterContext;

  constructor(context: PermitWaiterContext) {
    this.#context = context;
  }

  /**
   * One place in the line; undefined if the key vanished with its lease while waiting (the caller joins again, at the
   * back). An abort takes the key out of the line before the promise rejects.
   */
  async wait(request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted | undefined> {
    const { settings } = this.#context;
    const entry = permitEntry(settings.prefix, request);
    const { memberLease, watch } = await this.#prepare(request, entry);
    if (!memberLease.session) memberLease.lease.startKeepingAlive();
    let granted = false;
    try {
      let line = await this.#join(request, entry, memberLease, signal);
      const joinedAt = line && findEntry(line, entry.member)?.createRevision;
      for (;;) {
        signal.throwIfAborted();
        const mine = line && findEntry(line, entry.member, joinedAt);
        if (line === undefined || mine === undefined) return await this.#lost(memberLease);
        if (holdersOf(line).includes(mine)) {
          granted = true;
          return permitGrantedFrom(this.#context.holds.remember(request, entry.member, mine.createRevision, mine.modRevision, entry.value, memberLease));
        }
        watch.follow(line, mine, request.permits);
        await watch.next(settings.recheckIntervalMs, signal);
        line = await this.#reread(watch, entry.line, signal);
      }
    } finally {
      watch.close();
      if (!memberLease.session) memberLease.lease.stopKeepingAlive();
      if (!granted) await this.#abandon(entry, memberLease);
    }
  }

  /** The key's lease and the watch on its line, asked for together; the watch is open before the key joins, so no deletion after the join is missed. */
  async #prepare(request: DriverPermitRequest, entry: PermitEntry): Promise<{ memberLease: MemberLease; watch: LineWatch }> {
    const { client, settings, memberLeases } = this.#context;
    const [memberLease, watch] = await Promise.allSettled([memberLeases.unnamed(request.ttlMs), LineWatch.open(client, entry.line, settings.requestTimeoutMs)]);
    if (memberLease.status === "fulfilled" && watch.status === "fulfilled") return { memberLease: memberLease.value, watch: watch.value };
    if (memberLease.status === "fulfilled") memberLeases.free(memberLease.value, request);
    if (watch.status === "fulfilled") watch.value.close();
    throw memberLease.status === "rejected" ? memberLease.reason : (watch as PromiseRejectedResult).reason;
  }

  async #join(request: DriverPermitRequest, entry: PermitEntry, memberLease: MemberLease, signal: AbortSignal): Promise<PermitLine | undefined> {
    try {
      return await joinLine(this.#context.keyspace, request, entry, {
        admits: ALWAYS,
        attempts: Number.POSITIVE_INFINITY,
        leaseId: () => memberLease.lease.id,
        signal,
      });
    } catch (error) {
      if (!memberLease.session || !(error instanceof EtcdLeaseInvalidError)) throw error;
      this.#context.session.discard(memberLease.lease);
      return undefined;
    }
  }

  /** The line read afresh once the watch is sound (reopened if etcd ended it); etcd not answering is waited out. */
  async #reread(watch: LineWatch, line: Buffer, signal: AbortSignal): Promise<PermitLine> {
    for (;;) {
      signal.throwIfAborted();
      try {
        if (watch.broken) await watch.reopen(this.#context.settings.requestTimeoutMs);
        return await this.#context.keyspace.read(line);
      } catch {
        await abortableSleep(WAIT_RETRY_MS, signal);
      }
    }
  }

  /** The key is gone: its lease ended. A lost session lease is dropped, so the next join takes a live one. */
  async #lost(memberLease: MemberLease): Promise<undefined> {
    if (memberLease.session && !(await memberLease.lease.keepAlive().catch(() => ({ alive: true }))).alive) this.#context.session.discard(memberLease.lease);
    return undefined;
  }

  /** Takes the key out of the line before the caller hears of the abort, so no permit is held or waited for in its name. */
  async #abandon(entry: PermitEntry, memberLease: MemberLease): Promise<void> {
    try {
      if (memberLease.session) await this.#context.keyspace.delete(entry.member);
      else await memberLease.lease.revoke();
    } catch {
      // etcd is unreachable: a lease of its own is no longer kept alive and ends with the key; a session key stays until deleted or the session ends.
    }
  }
}
