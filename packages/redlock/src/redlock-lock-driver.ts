import type { LockCapabilities, LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait, LockDriver, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { type ProcessCohort, ProcessCohorts, RedisKeyLayout } from "@distlock/redis/internal";
import { TokenProposals } from "./fencing/token-proposals.js";
import { freshMajority } from "./operations/acquire-votes.js";
import { QuorumAcquire } from "./operations/quorum-acquire.js";
import { QuorumInspection } from "./operations/quorum-inspection.js";
import { QuorumKeySets } from "./operations/quorum-key-sets.js";
import { QuorumRelease } from "./operations/quorum-release.js";
import { QuorumRenewal } from "./operations/quorum-renewal.js";
import type { ResolvedRedlockLockOptions } from "./options/redlock-lock-provider-options.js";
import { LeaseBudget } from "./quorum/lease-budget.js";
import type { NodeSet } from "./quorum/node-set.js";
import { RedlockSemaphoreDriver } from "./semaphore/redlock-semaphore-driver.js";

/** What a `RedlockLockDriver` runs on. */
export interface RedlockLockDriverConfig {
  readonly nodes: NodeSet;
  readonly settings: ResolvedRedlockLockOptions;
}

/** A lease this short cannot survive two round trips and the drift margin. */
const MIN_TTL_MS = 50;

const FREED = Object.freeze({ held: true, holdCount: 0 });

/**
 * Redlock over independent Redis masters: a key is held while a majority of nodes hold it and the validity
 * (lease − elapsed − drift) is positive. Each operation is its own module (`operations/`); this class wires them.
 */
export class RedlockLockDriver implements LockDriver {
  readonly backend = "redlock";
  readonly capabilities: LockCapabilities;
  readonly layout: RedisKeyLayout;
  /** Counting semaphores on the same nodes, each grant held on its own quorum (see "Semaphores" in the README). */
  readonly semaphores: SemaphoreDriver;
  readonly #nodes: NodeSet;
  readonly #acquire: QuorumAcquire;
  readonly #renewal: QuorumRenewal;
  readonly #release: QuorumRelease;
  readonly #inspection: QuorumInspection;
  readonly #keySets: QuorumKeySets;
  /** The keys held here on a quorum that pass among this process's fresh owners without a server call; undefined when none may. */
  readonly #cohorts: ProcessCohorts | undefined;

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
      semaphore: true,
    });
    const decidedEarly = settings.awaitEveryVote ? undefined : freshMajority(config.nodes.quorum);
    const context = { nodes: config.nodes, layout: this.layout, budget: new LeaseBudget(settings), settings, decidedEarly };
    // Passes need tokens: each local holder gets the next one of the block its cohort's grant reserved.
    this.#cohorts =
      settings.localPasses > 0 && settings.fencing
        ? new ProcessCohorts(settings.localPasses, undefined, (cohort) => void this.#giveBack(cohort).catch(() => undefined))
        : undefined;
    // One proposal floor for single keys and sets: a token this provider was granted is never proposed again.
    const judge = {
      nodes: config.nodes,
      proposals: new TokenProposals(),
      jitterMs: () => 1 + Math.floor(Math.random() * settings.retryJitterMs),
    };
    this.#acquire = new QuorumAcquire(context, judge, this.#cohorts);
    this.#keySets = new QuorumKeySets(context, judge);
    this.#renewal = new QuorumRenewal(context);
    this.#release = new QuorumRelease(context);
    this.#inspection = new QuorumInspection(context);
    this.semaphores = new RedlockSemaphoreDriver(context);
  }

  /** The node set's majority size. */
  get quorum(): number {
    return this.#nodes.quorum;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const passed = this.#cohorts?.take(request);
    return passed === undefined ? this.#acquire.tryAcquire(request) : Promise.resolve(passed);
  }

  /** Waits for a pass in this process's cohort of the key when it may get one, else (or when the cohort ends) in the nodes' queues. */
  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    const inCohort = this.#cohorts?.wait(request, wait);
    if (inCohort === undefined) return this.#acquire.acquire(request, wait);
    return inCohort.then((granted) => granted ?? this.#acquire.acquire(request, wait));
  }

  isWatching(key: string): boolean {
    const channel = this.layout.releaseChannel(key);
    return this.#nodes.nodes.some((node) => node.isListening(channel));
  }

  /** Extends leases on a majority; a cohort's holder renews the cohort's hold, and a refused renewal ends the cohort. */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#cohorts === undefined ? this.#renewal.renew(renewals) : this.#cohorts.renew(renewals, (sent) => this.#renewal.renew(sent));
  }

  /** Drops one level; a cohort's holder passes the hold here (within `localPasses`) or gives it back to the nodes. */
  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    const inCohort = this.#cohorts?.release(key, ownerSecret);
    if (inCohort !== undefined) return inCohort === "passed" ? Promise.resolve(FREED) : this.#giveBack(inCohort);
    return this.#release.release(key, ownerSecret);
  }

  /**
   * Every key of a set or none, one script per node. A key lingering in a process cohort here is held on the nodes under
   * the cohort's secret, so the set is refused and core waits for its keys one by one, where the cohort can pass it.
   */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return this.#keySets.tryAcquireAll(requests);
  }

  /** One level of each key dropped, one script per node (a set never holds a key through a cohort: its requests are not fresh owners'). */
  releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    return this.#keySets.releaseAll(keys, ownerSecret);
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#inspection.inspect(key);
  }

  list(prefix: string, limit: number): Promise<LockState[]> {
    return this.#inspection.list(prefix, limit);
  }

  forceRelease(key: string): Promise<boolean> {
    this.#cohorts?.drop(key);
    return this.#release.forceRelease(key);
  }

  /** Gives back the holds lingering in cohorts, then closes the connections the driver created: the provider has already released its holds. */
  async close(): Promise<void> {
    await Promise.allSettled((this.#cohorts?.endAll() ?? []).map((cohort) => this.#giveBack(cohort)));
    return this.#nodes.close();
  }

  /**
   * Gives a cohort's hold back to the nodes: owner-checked on each under its server secret, each counter that still
   * shows the hold lowered to the last token passed here, and the key handed to the head of each node's queue.
   */
  #giveBack(cohort: ProcessCohort): Promise<{ held: boolean; holdCount: number }> {
    return this.#release.release(cohort.key, cohort.serverSecret, cohort.lastToken).catch((error: unknown) => {
      this.#cohorts?.giveBackFailed(cohort);
      throw error;
    });
  }
}
