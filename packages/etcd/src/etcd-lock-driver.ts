import { BackendUnavailableError, type LockCapabilities, LockError, type LockState, ProviderClosedError } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { compareKeys, roundTtl } from "@distlock/core/internal";
import type { Etcd3, IKeyValue } from "etcd3";
import { BackgroundTasks } from "./connection/background-tasks.js";
import { driverSettings, type EtcdDriverSettings } from "./connection/call-options.js";
import { createEtcdClient } from "./connection/create-etcd-client.js";
import { toBackendError } from "./connection/to-backend-error.js";
import { MAX_CAS_ATTEMPTS } from "./holds/hold-record.js";
import { HoldRecords } from "./holds/hold-records.js";
import { HoldReleaser, type ReleaseOutcome } from "./holds/hold-releaser.js";
import { HoldRenewer } from "./holds/hold-renewer.js";
import { HoldTaker } from "./holds/hold-taker.js";
import { decodeMemberValue } from "./keys/lock-keys.js";
import { LockKeyspace } from "./keys/lock-keyspace.js";
import { MemberLeases } from "./leases/member-leases.js";
import { SessionLease } from "./leases/session-lease.js";
import { takeInRuns } from "./multi-key/take-in-runs.js";
import type { ResolvedEtcdLockOptions } from "./options/etcd-lock-provider-options.js";
import { EtcdSemaphoreDriver } from "./semaphore/etcd-semaphore-driver.js";
import { LineWaiter } from "./waiting/line-waiter.js";

/**
 * etcd's `concurrency.Mutex` as a distlock driver: member keys `<prefix>/<key>/<leaseHex>`, holder =
 * lowest create revision, waiters watch their immediate predecessor, fencing token = create revision.
 * Holds whose TTL equals the session TTL share one session lease; other TTLs get a lease each.
 * Counting semaphores (`semaphores`) run on the same client and leases.
 */
export class EtcdLockDriver implements LockDriver {
  readonly backend = "etcd";
  readonly capabilities: LockCapabilities;
  readonly #settings: EtcdDriverSettings;
  readonly #client: Etcd3;
  readonly #ownsClient: boolean;
  readonly #keyspace: LockKeyspace;
  readonly #session: SessionLease;
  readonly #background = new BackgroundTasks();
  readonly #holds: HoldRecords;
  readonly #renewer: HoldRenewer;
  readonly #taker: HoldTaker;
  readonly #releaser: HoldReleaser;
  readonly #queue: LineWaiter;
  readonly semaphores: EtcdSemaphoreDriver;
  #closed: Promise<void> | undefined;

  constructor(options: ResolvedEtcdLockOptions) {
    const settings = driverSettings(options);
    this.#settings = settings;
    this.capabilities = Object.freeze({
      fencing: true,
      fifo: true,
      serverClock: true,
      minTtlMs: Math.ceil(settings.minTtlMs / 1000) * 1000,
      ttlGranularityMs: 1000,
      listing: true,
      semaphore: true,
    });
    const client = settings.client ?? createEtcdClient(settings);
    this.#client = client;
    this.#ownsClient = settings.client === undefined;
    const keyspace = new LockKeyspace(client, settings.prefix, settings.callOptions);
    const session = new SessionLease(client, roundTtl(settings.sessionTtlMs, this.capabilities), settings);
    const background = this.#background;
    const holds = new HoldRecords({ client, settings, keyspace, session, background });
    const memberLeases = new MemberLeases(client, settings, session, holds, background);
    this.#keyspace = keyspace;
    this.#session = session;
    this.#holds = holds;
    this.#renewer = new HoldRenewer({ client, settings, keyspace, holds, background });
    this.#taker = new HoldTaker({ client, settings, keyspace, session, memberLeases, holds, background });
    this.#releaser = new HoldReleaser(keyspace, holds);
    this.#queue = new LineWaiter({ client, settings, keyspace, session, memberLeases, holds });
    this.semaphores = new EtcdSemaphoreDriver({
      client,
      settings,
      keyspace,
      session,
      memberLeases,
      background,
      run: (operation, call) => this.#run(operation, call),
      failure: (operation, error) => this.#failure(operation, error),
    });
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
    return this.#run("renew", () => this.#renewer.renew(renewals));
  }

  release(key: string, ownerSecret: string): Promise<ReleaseOutcome> {
    return this.#run("release", async () => (await this.#releaser.releaseAll([key], ownerSecret))[0] as ReleaseOutcome);
  }

  /** Every key of the set or none in one txn (a set with nested keys in one txn per run of unnested ones); see `HoldTaker`. */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return this.#run("acquire", () =>
      takeInRuns(
        requests,
        (run) => this.#taker.takeAll(run),
        (keys, ownerSecret) => this.#releaser.releaseAll(keys, ownerSecret),
      ),
    );
  }

  /** One level of each key dropped in one txn. */
  releaseAll(keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
    return this.#run("release", () => this.#releaser.releaseAll(keys, ownerSecret));
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#run("inspect", () => this.#inspect(key));
  }

  /**
   * One range read over `<prefix>/<keyPrefix>` at one revision: the member keys grouped by lock key, the lowest create
   * revision of each group its holder and the rest its waiters; then each holder's lease TTL.
   */
  list(prefix: string, limit: number): Promise<LockState[]> {
    return this.#run("list", async () => {
      const byKey = new Map<string, IKeyValue[]>();
      for (const member of await this.#keyspace.membersUnder(prefix)) {
        const name = member.key.toString("utf8");
        const key = name.slice(this.#settings.prefix.length + 1, name.lastIndexOf("/"));
        if (key.length > 0 && key.startsWith(prefix)) byKey.set(key, [...(byKey.get(key) ?? []), member]);
      }
      const keys = [...byKey.keys()].sort(compareKeys).slice(0, limit);
      return Promise.all(
        keys.map((key) => {
          const members = byKey.get(key) ?? [];
          const holder = members.reduce((first, member) => (BigInt(member.create_revision) < BigInt(first.create_revision) ? member : first));
          return this.#stateOf(key, holder, members.length);
        }),
      );
    });
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#run("forceRelease", () => this.#forceRelease(key));
  }

  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const result = await this.#taker.takeAll([request]);
    return Array.isArray(result) ? (result[0] as DriverGranted) : result;
  }

  async #acquire(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    if (this.#holds.find(request.key, request.ownerSecret) !== undefined) {
      const reentered = await this.#tryAcquire(request);
      if (reentered.acquired) return reentered;
    }
    for (;;) {
      const granted = await this.#queue.wait(request, signal);
      if (granted) return granted;
    }
  }

  async #inspect(key: string): Promise<LockState | null> {
    const { holder, members } = await this.#keyspace.holderAndMembers(key);
    return holder === undefined ? null : this.#stateOf(key, holder, members);
  }

  /** The public view of `key` held by member `holder`, with `members` member keys (holder and waiters) under it. */
  async #stateOf(key: string, holder: IKeyValue, members: number): Promise<LockState> {
    const value = decodeMemberValue(holder.value);
    const ttlRemainingMs = await this.#keyspace.leaseRemainingMs(holder.lease);
    const foreign = `etcd-client:${holder.key.toString("utf8").slice(`${this.#settings.prefix}/${key}/`.length)}`;
    return {
      key,
      holder: value?.holder ?? foreign,
      holdCount: value?.count ?? 1,
      fencingToken: BigInt(holder.create_revision),
      ttlRemainingMs,
      waiters: members - 1,
    };
  }

  async #forceRelease(key: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const holder = await this.#keyspace.holder(key);
      if (holder === undefined) return false;
      if (await this.#keyspace.deleteIfCreatedAt(holder.key, holder.create_revision)) return true;
    }
    throw new BackendUnavailableError("etcd", `the holder of "${key}" kept changing during forceRelease; try again`);
  }

  #run<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return run().catch((error: unknown) => {
        throw this.#failure(operation, error);
      });
    } catch (error) {
      return Promise.reject(this.#failure(operation, error));
    }
  }

  /** The error a failed call rejects with; a call cut off by `close()` says so instead of blaming etcd. */
  #failure(operation: string, error: unknown): unknown {
    if (this.#closed !== undefined && !LockError.is(error)) return new ProviderClosedError(this.backend);
    return toBackendError(operation, error, this.#settings.hosts);
  }

  async #shutdown(): Promise<void> {
    try {
      const records = [...this.#holds.close(), ...(await this.semaphores.close())];
      await Promise.allSettled([this.#session.close(), ...records.filter((r) => r.ownsLease).map((r) => r.lease.revoke())]);
      await this.#background.settled();
      if (this.#ownsClient) this.#client.close();
    } finally {
      this.semaphores.closed();
    }
  }
}
