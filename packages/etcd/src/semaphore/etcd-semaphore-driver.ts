import { LockError, LockErrorCode, ProviderClosedError, type SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { Latch } from "@distlock/core/internal";
import { type Etcd3, EtcdLeaseInvalidError } from "etcd3";
import type { BackgroundTasks } from "../connection/background-tasks.js";
import type { EtcdDriverSettings } from "../connection/call-options.js";
import type { HoldRecord } from "../holds/hold-record.js";
import { HoldRecords } from "../holds/hold-records.js";
import { HoldRenewer } from "../holds/hold-renewer.js";
import type { LockKeyspace } from "../keys/lock-keyspace.js";
import type { MemberLease } from "../leases/member-lease.js";
import type { MemberLeases } from "../leases/member-leases.js";
import type { SessionLease } from "../leases/session-lease.js";
import { joinLine, permitEntry } from "./join-line.js";
import { permitGrantedFrom } from "./permit-granted.js";
import { fitsNow, holdersOf, storedPermits, UNREAD_LINE } from "./permit-line.js";
import { PermitWaiter } from "./permit-waiter.js";
import { linePrefix } from "./semaphore-keys.js";
import { SemaphoreKeyspace } from "./semaphore-keyspace.js";

/** What the semaphores share with the lock driver: its client, leases and member-key operations, and how its calls fail. */
export interface EtcdSemaphoreContext {
  readonly client: Etcd3;
  readonly settings: EtcdDriverSettings;
  readonly keyspace: LockKeyspace;
  readonly session: SessionLease;
  readonly memberLeases: MemberLeases;
  readonly background: BackgroundTasks;
  /** Runs one call, failing as the lock driver's calls do. */
  run<T>(operation: string, call: () => Promise<T>): Promise<T>;
  /** The error a failed call rejects with. */
  failure(operation: string, error: unknown): unknown;
}

/** Txns of one `tryAcquire` that may find others joined the line meanwhile before it answers refused. */
const TRY_ATTEMPTS = 8;

/**
 * Counting semaphores on etcd: each grant or waiter is a member key in the semaphore's line (ordered by create
 * revision, on a lease); the holders are the front of the line whose counts fit in the permits. Joining is one txn that
 * fails if anyone joined since the line was read; a release is one delete; waiters watch the line. See the README.
 */
export class EtcdSemaphoreDriver implements SemaphoreDriver {
  readonly #context: EtcdSemaphoreContext;
  readonly #line: SemaphoreKeyspace;
  readonly #holds: HoldRecords;
  readonly #renewer: HoldRenewer;
  readonly #waiter: PermitWaiter;
  readonly #closing = new AbortController();
  readonly #closed = new Latch("stays-open");
  readonly #waits = new Set<Promise<DriverGranted>>();

  constructor(context: EtcdSemaphoreContext) {
    const { client, settings, keyspace, session, memberLeases, background } = context;
    this.#context = context;
    this.#line = new SemaphoreKeyspace(client, settings.callOptions);
    this.#holds = new HoldRecords({ client, settings, keyspace, session, background });
    this.#renewer = new HoldRenewer({ client, settings, keyspace, holds: this.#holds, background });
    this.#waiter = new PermitWaiter({ client, settings, keyspace: this.#line, session, memberLeases, holds: this.#holds });
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#context.run("acquire", () => this.#tryAcquire(request));
  }

  async acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    const waiting = this.#acquire(request, AbortSignal.any([wait.signal, this.#closing.signal]));
    this.#waits.add(waiting);
    try {
      return await waiting;
    } catch (error) {
      if (!wait.signal.aborted) throw this.#context.failure("acquire", error);
      // Ended by the provider's close: rejecting only once the driver closed lets a caller that awaits close() first
      // still be there to hear it.
      if (LockError.is(wait.signal.reason, LockErrorCode.ProviderClosed)) await this.#closed.wait(this.#context.settings.requestTimeoutMs);
      throw wait.signal.reason;
    } finally {
      this.#waits.delete(waiting);
    }
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#context.run("renew", () => this.#renewer.renew(renewals));
  }

  release(name: string, ownerSecret: string): Promise<boolean> {
    return this.#context.run("release", async () => {
      const record = this.#holds.find(name, ownerSecret);
      if (record === undefined) return false;
      const deleted = await this.#context.keyspace.deleteIfCreatedAt(record.member, record.createRevision);
      this.#holds.forget(record);
      return deleted;
    });
  }

  inspect(name: string): Promise<SemaphoreState | null> {
    return this.#context.run("inspect", () => this.#inspect(name));
  }

  /** Ends the waits (each leaves the line first) and stops the sweeps; returns the holds it had, for their leases to be revoked. */
  async close(): Promise<HoldRecord[]> {
    this.#closing.abort(new ProviderClosedError("etcd"));
    await Promise.allSettled([...this.#waits]);
    return this.#holds.close();
  }

  /** Called once the driver closed its connections: the waits that the close ended reject now. */
  closed(): void {
    this.#closed.open();
  }

  async #tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    const { settings, memberLeases, session, background } = this.#context;
    const entry = permitEntry(settings.prefix, request);
    // A lease of its own costs a grant and a revoke: the line is read first, so a refusal costs neither.
    const seen = request.ttlMs === session.ttlMs ? UNREAD_LINE : await this.#line.read(entry.line);
    for (let attempt = 0; ; attempt++) {
      let memberLease: MemberLease | undefined;
      let kept = false;
      try {
        const leaseId = async () => {
          memberLease ??= await memberLeases.unnamed(request.ttlMs);
          return memberLease.lease.id;
        };
        const line = await joinLine(this.#line, request, entry, { admits: (current) => fitsNow(current, request), attempts: TRY_ATTEMPTS, leaseId, seen });
        // Only core's polling fallback reads retryAfterMs, and this driver waits natively.
        if (line === undefined || memberLease === undefined) return { acquired: false, retryAfterMs: settings.recheckIntervalMs };
        kept = true;
        return permitGrantedFrom(this.#holds.remember(request, entry.member, line.revision, String(line.revision), entry.value, memberLease));
      } catch (error) {
        const leaseLost = error instanceof EtcdLeaseInvalidError;
        // An unanswered txn may still have put the key, and a key on the session lease would outlive this call.
        if (memberLease?.session && !leaseLost && !LockError.is(error)) background.track(this.#line.delete(entry.member));
        if (!memberLease?.session || !leaseLost || attempt > 0) throw error;
        session.discard(memberLease.lease);
      } finally {
        if (memberLease !== undefined && !kept) memberLeases.free(memberLease, request);
      }
    }
  }

  async #acquire(request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted> {
    for (;;) {
      const granted = await this.#waiter.wait(request, signal);
      if (granted) return granted;
    }
  }

  async #inspect(name: string): Promise<SemaphoreState | null> {
    const line = await this.#line.read(linePrefix(this.#context.settings.prefix, name));
    const permits = storedPermits(line);
    if (permits === undefined) return null;
    const holders = holdersOf(line);
    const leases = [...new Set(holders.map((entry) => entry.lease))];
    const remaining = await Promise.all(leases.map((lease) => this.#context.keyspace.leaseRemainingMs(lease)));
    const states = holders.map((entry) => ({
      holder: entry.value.holder,
      count: entry.value.count,
      fencingToken: entry.createRevision,
      ttlRemainingMs: remaining[leases.indexOf(entry.lease)] as number,
    }));
    return {
      name,
      permits,
      inUse: states.reduce((total, state) => total + state.count, 0),
      holders: states.sort((a, b) => a.ttlRemainingMs - b.ttlRemainingMs),
      waiters: line.entries.length - holders.length,
    };
  }
}
