import type {
  DriverAcquireRequest,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  LockCapabilities,
  LockDriver,
  LockState,
  ReleaseWatch,
} from "@distlock/core/driver";
import { LockdConnection } from "./connection/lockd-connection.js";
import type { ResolvedLockdLockOptions } from "./options/lockd-lock-provider-options.js";
import { fromWire } from "./protocol/from-wire.js";
import type { WireLockState } from "./protocol/lockd-protocol.js";
import { LockdSemaphoreDriver } from "./semaphore/lockd-semaphore-driver.js";
import { ReleaseWatches } from "./waiting/release-watches.js";

/**
 * lockd's `LockDriver`: each member is one request, which the server handles atomically. Waiting is core's polling path
 * woken by the server's release messages (`watchReleases`); lockd keeps no line of lock waiters, so `fifo` is false.
 */
export class LockdLockDriver implements LockDriver {
  readonly backend = "lockd";
  readonly capabilities: LockCapabilities = Object.freeze({
    fencing: true,
    fifo: false,
    // Leases run on the server's monotonic clock; clients only ever compare durations.
    serverClock: true,
    minTtlMs: 1,
    ttlGranularityMs: 1,
    listing: true,
    semaphore: true,
  });
  readonly semaphores: LockdSemaphoreDriver;
  readonly #connection: LockdConnection;
  readonly #watches: ReleaseWatches;
  readonly #prefix: string;

  /** Opens nothing: the connection is made on the first call. */
  constructor(options: ResolvedLockdLockOptions) {
    this.#prefix = options.prefix;
    this.#connection = new LockdConnection(options, {
      opening: () => this.#watches.subscriptions(),
      pushed: (push) => this.#watches.released(push.key),
      lost: () => this.#watches.lost(),
    });
    this.#watches = new ReleaseWatches(this.#connection);
    this.semaphores = new LockdSemaphoreDriver(this.#connection, options.prefix);
  }

  async tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    const { key, ownerSecret, holder, ttlMs } = request;
    return fromWire(await this.#connection.call({ op: "acquire", key: this.#prefix + key, secret: ownerSecret, holder, ttlMs }));
  }

  watchReleases(key: string): Promise<ReleaseWatch> {
    return this.#watches.watch(this.#prefix + key);
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    if (renewals.length === 0) return [];
    const wire = renewals.map(({ key, ownerSecret, ttlMs }) => ({ key: this.#prefix + key, secret: ownerSecret, ttlMs }));
    return this.#connection.call({ op: "renew", renewals: wire });
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#connection.call({ op: "release", key: this.#prefix + key, secret: ownerSecret });
  }

  async inspect(key: string): Promise<LockState | null> {
    const state = await this.#connection.call({ op: "inspect", key: this.#prefix + key });
    return state === null ? null : this.#state(state);
  }

  async list(prefix: string, limit: number): Promise<LockState[]> {
    const states = await this.#connection.call({ op: "list", prefix: this.#prefix + prefix, limit });
    return states.map((state) => this.#state(state));
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#connection.call({ op: "forceRelease", key: this.#prefix + key });
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  /** The server's view with the key as the caller named it; lockd has no line of lock waiters, so `waiters` is 0. */
  #state(state: WireLockState): LockState {
    const { holder, holdCount, ttlRemainingMs } = state;
    return { key: state.key.slice(this.#prefix.length), holder, holdCount, fencingToken: BigInt(state.token), ttlRemainingMs, waiters: 0 };
  }
}
