import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, LockCapabilities, LockDriver, LockState } from "@distlock/core/driver";
import { LockTable } from "./connection/lock-table.js";
import { HoldReleaser } from "./holds/hold-releaser.js";
import { HoldRenewer } from "./holds/hold-renewer.js";
import { HoldTaker } from "./holds/hold-taker.js";
import { LeaseObservations } from "./leases/lease-observations.js";
import { HoldSetTaker } from "./multi-key/hold-set-taker.js";
import type { ResolvedDynamoDbLockOptions } from "./options/dynamodb-lock-provider-options.js";
import type { LockItem } from "./table/lock-item.js";

/**
 * DynamoDB's `LockDriver`: one item per key, changed only by conditional writes on what was read. DynamoDB has no
 * clock a condition can use, so a lease is judged as AWS's DynamoDB Lock Client judges it (`LeaseObservations`).
 * DynamoDB cannot notify, so waiters poll (core's backoff, bounded by the takeover time); there is no line, so `fifo`
 * is false, and no semaphores (core's need a server-side line of waiters).
 */
export class DynamoDbLockDriver implements LockDriver {
  readonly backend = "dynamodb";
  readonly capabilities: LockCapabilities = Object.freeze({
    fencing: true,
    fifo: false,
    serverClock: false,
    minTtlMs: 1,
    ttlGranularityMs: 1,
    listing: true,
    semaphore: false,
  });
  readonly #prefix: string;
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;
  readonly #taker: HoldTaker;
  readonly #renewer: HoldRenewer;
  readonly #releaser: HoldReleaser;
  readonly #setTaker: HoldSetTaker;

  /** Opens nothing: the SDK connects on the first call. */
  constructor(options: ResolvedDynamoDbLockOptions) {
    this.#prefix = options.prefix;
    this.#table = new LockTable(options);
    this.#observations = new LeaseObservations(options);
    this.#taker = new HoldTaker(this.#table, this.#observations);
    this.#renewer = new HoldRenewer(this.#table, this.#observations);
    this.#releaser = new HoldReleaser(this.#table, this.#observations);
    this.#setTaker = new HoldSetTaker(this.#table, this.#taker, this.#releaser);
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    return this.#taker.take(this.#prefix + request.key, request);
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return Promise.all(renewals.map((renewal) => this.#renewer.renew(this.#prefix + renewal.key, renewal)));
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#releaser.release(this.#prefix + key, ownerSecret);
  }

  /** Reads every key first (so each lease is timed from now on), then takes them in order, undoing a set that loses a race. */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return this.#setTaker.take(
      requests.map((request) => this.#prefix + request.key),
      requests,
    );
  }

  releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    return Promise.all(keys.map((key) => this.release(key, ownerSecret)));
  }

  async inspect(key: string): Promise<LockState | null> {
    const item = await this.#table.read(this.#prefix + key);
    return item === undefined ? null : this.#state(item);
  }

  /** A Scan of the whole table, filtered on the server to held keys under the prefix (see the README for its cost). */
  async list(prefix: string, _limit: number): Promise<LockState[]> {
    const items = await this.#table.scanHeld(this.#prefix + prefix);
    return items.flatMap((item) => this.#state(item) ?? []);
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#releaser.forceRelease(this.#prefix + key);
  }

  close(): Promise<void> {
    return this.#table.close();
  }

  /**
   * The hold as this process judges it: null when free, or when its version has been seen unchanged for longer than a
   * takeover waits. The lease left is an estimate from the sighting's age: DynamoDB keeps no time.
   */
  #state(item: LockItem): LockState | null {
    const { hold } = item;
    if (hold === undefined) return null;
    const seen = this.#observations.see(item.key, item.recordVersion, hold.leaseMs);
    if (this.#observations.untilTakeover(seen) === 0) return null;
    return {
      key: item.key.slice(this.#prefix.length),
      holder: hold.holder,
      holdCount: hold.holdCount,
      fencingToken: item.fencingToken,
      ttlRemainingMs: this.#observations.leaseLeftMs(seen),
      waiters: 0,
    };
  }
}
