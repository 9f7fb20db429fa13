import type {
  DriverAcquireRequest,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  DriverWait,
  LockCapabilities,
  LockDriver,
  LockState,
} from "@distlock/core/driver";
import { LockTable } from "./connection/lock-table.js";
import { FreedKeys } from "./holds/freed-keys.js";
import { HoldReleaser } from "./holds/hold-releaser.js";
import { HoldRenewer } from "./holds/hold-renewer.js";
import { HoldTaker } from "./holds/hold-taker.js";
import { LeaseObservations } from "./leases/lease-observations.js";
import { PlaceLeases } from "./leases/place-leases.js";
import { HoldSetTaker } from "./multi-key/hold-set-taker.js";
import type { ResolvedDynamoDbLockOptions } from "./options/dynamodb-lock-provider-options.js";
import type { LockItem } from "./table/lock-item.js";
import { LineWaiter } from "./waiting/line-waiter.js";

/**
 * DynamoDB's `LockDriver`: one item per key, changed only by conditional writes on what was read. DynamoDB has no
 * clock a condition can use, so a lease is judged as AWS's DynamoDB Lock Client judges it (`LeaseObservations`).
 * Waiters stand in a line kept in the item (`LineWaiter`), so `fifo` is true; DynamoDB cannot notify, so they poll.
 * No semaphores: core's need a line of permits that this item does not keep.
 */
export class DynamoDbLockDriver implements LockDriver {
  readonly backend = "dynamodb";
  readonly capabilities: LockCapabilities = Object.freeze({
    fencing: true,
    fifo: true,
    serverClock: false,
    minTtlMs: 1,
    ttlGranularityMs: 1,
    listing: true,
    semaphore: false,
  });
  readonly #prefix: string;
  readonly #table: LockTable;
  readonly #observations: LeaseObservations;
  readonly #places: PlaceLeases;
  readonly #taker: HoldTaker;
  readonly #renewer: HoldRenewer;
  readonly #releaser: HoldReleaser;
  readonly #setTaker: HoldSetTaker;
  readonly #line: LineWaiter;

  /** Opens nothing: the SDK connects on the first call. */
  constructor(options: ResolvedDynamoDbLockOptions) {
    this.#prefix = options.prefix;
    this.#table = new LockTable(options);
    this.#observations = new LeaseObservations(options);
    this.#places = new PlaceLeases(options);
    const freedKeys = new FreedKeys();
    this.#taker = new HoldTaker(this.#table, this.#observations, this.#places, freedKeys);
    this.#renewer = new HoldRenewer(this.#table, this.#observations);
    this.#releaser = new HoldReleaser(this.#table, this.#observations, freedKeys);
    this.#setTaker = new HoldSetTaker(this.#table, this.#taker, this.#releaser);
    this.#line = new LineWaiter(this.#table, this.#taker, this.#releaser, this.#places);
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    return this.#taker.take(this.#prefix + request.key, request);
  }

  /** Waits in the key's line (see `LineWaiter`). */
  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#line.wait(this.#prefix + request.key, request, wait.signal);
  }

  /** True while a waiter of this process stands in the key's line, or did a moment ago: a new owner then joins it instead of a refused attempt. */
  isWatching(key: string): boolean {
    return this.#line.isContended(this.#prefix + key);
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

  /** Waits for the waits the provider has aborted to take their places out of line, then closes the client. */
  async close(): Promise<void> {
    await this.#line.waitsEnded();
    await this.#table.close();
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
      waiters: item.line.filter((place) => this.#places.untilLapse(place) > 0).length,
    };
  }
}
