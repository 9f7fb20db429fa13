import type {
  DriverAcquireRequest,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  DriverWait,
  LockCapabilities,
  LockDriver,
  LockState,
  SemaphoreDriver,
} from "@distlock/core/driver";
import { NatsBucketConnection } from "./connection/nats-bucket-connection.js";
import { type HoldContext, OwnWrites } from "./holds/hold-context.js";
import { inspectLock } from "./holds/inspect-hold.js";
import { LeaseObservations } from "./holds/lease-observations.js";
import { listHolds } from "./holds/list-holds.js";
import { forceReleaseHold, releaseHold } from "./holds/release-hold.js";
import { renewHold } from "./holds/renew-hold.js";
import { takeHoldSet } from "./holds/take-hold-set.js";
import { lockKey } from "./keys/lock-keys.js";
import type { ResolvedNatsLockOptions } from "./options/nats-lock-provider-options.js";
import { NatsSemaphoreDriver } from "./semaphore/nats-semaphore-driver.js";
import { KeyWatches } from "./waiting/key-watches.js";
import { LockLine } from "./waiting/lock-line.js";

/**
 * The NATS JetStream key-value `LockDriver`: each hold is one entry of the bucket, each change of it one conditional
 * write on the revision read (`Nats-Expected-Last-Subject-Sequence`). Leases are judged as AWS's DynamoDB lock client
 * judges them, on each reader's monotonic clock from when it first saw a revision (`LeaseObservations`). Waiters wait
 * natively in a strict FIFO line kept beside the lock (`LockLine`), woken by KV watches.
 */
export class NatsLockDriver implements LockDriver {
  readonly backend = "nats";
  readonly capabilities: LockCapabilities = Object.freeze({
    fencing: true,
    fifo: true,
    // nats-server 2.9 has no per-key TTL: leases are counted on the readers' monotonic clocks.
    serverClock: false,
    minTtlMs: 1,
    ttlGranularityMs: 1,
    listing: true,
    semaphore: true,
  });
  readonly semaphores: SemaphoreDriver;
  readonly #semaphores: NatsSemaphoreDriver;
  readonly #connection: NatsBucketConnection;
  readonly #watches: KeyWatches;
  readonly #observations = new LeaseObservations();
  readonly #ownWrites = new OwnWrites();
  readonly #line: LockLine;
  readonly #commandTimeoutMs: number;

  /** Opens nothing: the connection is made on the first call. */
  constructor(options: ResolvedNatsLockOptions) {
    this.#commandTimeoutMs = options.commandTimeoutMs;
    this.#connection = new NatsBucketConnection(options, { interrupted: () => this.#watches.interrupted() });
    this.#watches = new KeyWatches(this.#connection, options.commandTimeoutMs);
    this.#line = new LockLine(() => this.#context(), this.#watches);
    this.#semaphores = new NatsSemaphoreDriver(() => this.#context(), this.#watches);
    this.semaphores = this.#semaphores;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    return this.#line.tryAcquire(request);
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#line.acquire(request, wait);
  }

  isWatching(key: string): boolean {
    return this.#line.isWatching(key);
  }

  async tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return takeHoldSet(
      await this.#context(),
      requests.map(({ key }) => lockKey(key)),
      requests,
    );
  }

  async releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    const context = await this.#context();
    return Promise.all(keys.map((key) => releaseHold(context, lockKey(key), ownerSecret)));
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    if (renewals.length === 0) return [];
    const context = await this.#context();
    return Promise.all(renewals.map(({ key, ownerSecret, ttlMs }) => renewHold(context, lockKey(key), ownerSecret, ttlMs)));
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return releaseHold(await this.#context(), lockKey(key), ownerSecret);
  }

  async inspect(key: string): Promise<LockState | null> {
    return inspectLock(await this.#context(), key);
  }

  async list(prefix: string, limit: number): Promise<LockState[]> {
    return listHolds(await this.#context(), prefix, limit);
  }

  async forceRelease(key: string): Promise<boolean> {
    return forceReleaseHold(await this.#context(), lockKey(key));
  }

  async close(): Promise<void> {
    await Promise.all([this.#line.waitsEnded(), this.#semaphores.waitsEnded()]);
    this.#watches.close();
    await this.#connection.close();
  }

  async #context(): Promise<HoldContext> {
    const { kv, attemptKv, js, bucket } = await this.#connection.bucket();
    return { kv, attemptKv, js, bucket, commandTimeoutMs: this.#commandTimeoutMs, observations: this.#observations, ownWrites: this.#ownWrites };
  }
}
