import type { LockCapabilities, LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverAcquireResult, DriverGranted, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import { RedisKeyLayout } from "@distlock/redis/internal";
import { QuorumAcquire } from "./operations/quorum-acquire.js";
import { QuorumInspection } from "./operations/quorum-inspection.js";
import { QuorumRelease } from "./operations/quorum-release.js";
import { QuorumRenewal } from "./operations/quorum-renewal.js";
import type { ResolvedRedlockLockOptions } from "./options/redlock-lock-provider-options.js";
import { LeaseBudget } from "./quorum/lease-budget.js";
import type { NodeSet } from "./quorum/node-set.js";

/** What a `RedlockLockDriver` runs on. */
export interface RedlockLockDriverConfig {
  readonly nodes: NodeSet;
  readonly settings: ResolvedRedlockLockOptions;
}

/** A lease this short cannot survive two round trips and the drift margin. */
const MIN_TTL_MS = 50;

/**
 * Redlock over independent Redis masters: a key is held while a majority of nodes hold it and the validity
 * (lease − elapsed − drift) is positive. Each operation is its own module (`operations/`); this class wires them.
 */
export class RedlockLockDriver implements LockDriver {
  readonly backend = "redlock";
  readonly capabilities: LockCapabilities;
  readonly layout: RedisKeyLayout;
  readonly #nodes: NodeSet;
  readonly #acquire: QuorumAcquire;
  readonly #renewal: QuorumRenewal;
  readonly #release: QuorumRelease;
  readonly #inspection: QuorumInspection;

  constructor(config: RedlockLockDriverConfig) {
    const settings = Object.freeze({ ...config.settings });
    this.#nodes = config.nodes;
    this.layout = new RedisKeyLayout(settings.prefix);
    this.capabilities = Object.freeze({
      fencing: settings.fencing,
      fifo: true,
      serverClock: false,
      minTtlMs: MIN_TTL_MS,
      ttlGranularityMs: 1,
      listing: true,
      semaphore: false,
    });
    const context = { nodes: config.nodes, layout: this.layout, budget: new LeaseBudget(settings), settings };
    this.#acquire = new QuorumAcquire(context);
    this.#renewal = new QuorumRenewal(context);
    this.#release = new QuorumRelease(context);
    this.#inspection = new QuorumInspection(context);
  }

  /** The node set's majority size. */
  get quorum(): number {
    return this.#nodes.quorum;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#acquire.tryAcquire(request);
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#acquire.acquire(request, wait);
  }

  isWatching(key: string): boolean {
    const channel = this.layout.releaseChannel(key);
    return this.#nodes.nodes.some((node) => node.isListening(channel));
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#renewal.renew(renewals);
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#release.release(key, ownerSecret);
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#inspection.inspect(key);
  }

  list(prefix: string, limit: number): Promise<LockState[]> {
    return this.#inspection.list(prefix, limit);
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#release.forceRelease(key);
  }

  /** Closes the connections the driver created, at once: the provider has already released its holds. */
  close(): Promise<void> {
    return this.#nodes.close();
  }
}
