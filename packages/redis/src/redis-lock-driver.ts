import type { LockCapabilities, LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import { type CallOutcomes, monotonicNow } from "@distlock/core/internal";
import { giveBackCall } from "./cohorts/give-back-call.js";
import type { ProcessCohort } from "./cohorts/process-cohort.js";
import { ProcessCohorts } from "./cohorts/process-cohorts.js";
import { RedisCalls, type ScriptCall } from "./connection/redis-calls.js";
import { listHeld } from "./keys/list-held.js";
import { RedisKeyLayout } from "./keys/redis-key-layout.js";
import { KeySets } from "./multi-key/key-sets.js";
import type { RedisLockDriverConfig } from "./redis-lock-driver-config.js";
import { ReplicaAcknowledgement } from "./replication/replica-acknowledgement.js";
import {
  type AcquireReply,
  type AttemptCall,
  attemptResult,
  FREED,
  isGrantReply,
  type LocalOffer,
  type ReleaseReply,
  releaseResult,
} from "./scripts/lock-replies.js";
import { INSPECT_SCRIPT, LOCK_RENEW_SCRIPT } from "./scripts/lock-scripts.js";
import { LEAVE_QUEUE_SCRIPT, QUEUED_ACQUIRE_SCRIPT, QUEUED_FORCE_RELEASE_SCRIPT, QUEUED_RELEASE_SCRIPT } from "./scripts/queue-scripts.js";
import { renewInBatches } from "./scripts/renew-in-batches.js";
import { ownerPrefix } from "./scripts/stored-hold.js";
import { RedisSemaphoreDriver } from "./semaphore/redis-semaphore-driver.js";
import { CohortLines } from "./waiting/cohort-lines.js";
import { type LineRefusal, type ServerLineAccess, type ServerLineGrant, waitInServerLine } from "./waiting/wait-in-server-line.js";

const CAPABILITIES: LockCapabilities = Object.freeze({
  fencing: true,
  fifo: true,
  serverClock: true,
  minTtlMs: 1,
  ttlGranularityMs: 1,
  listing: true,
  semaphore: true,
});

/** The lock operations as atomic Lua scripts on one Redis, Sentinel-managed master or Cluster, with a FIFO wait queue per key. */
export class RedisLockDriver implements LockDriver {
  readonly backend = "redis";
  readonly capabilities = CAPABILITIES;
  readonly layout: RedisKeyLayout;
  readonly semaphores: RedisSemaphoreDriver;
  readonly #config: RedisLockDriverConfig;
  readonly #calls: RedisCalls;
  readonly #replicas: ReplicaAcknowledgement | undefined;
  readonly #queue: ServerLineAccess;
  readonly #keySets: KeySets;
  /** Undefined when releases pass nothing locally (`localPasses` 0, or `waitForReplicas`: a grant must be claimed). */
  readonly #localLines: CohortLines | undefined;
  /** The keys held here that pass among this process's fresh owners without a server call; undefined with `#localLines`. */
  readonly #cohorts: ProcessCohorts | undefined;
  /** How many times in a row core may pass a contended set here (`localPasses`; 0 with `waitForReplicas`). */
  readonly setPasses: number;
  /** The hot path's outcomes, made once: an acquire or release allocates no closures of its own. */
  readonly #acquireOutcomes: CallOutcomes<unknown, DriverGranted | LineRefusal, AttemptCall>;
  /** A release's request is its key, or the offer it made to a waiter here. */
  readonly #releaseOutcomes: CallOutcomes<unknown, { held: boolean; holdCount: number }, ScriptCall<LocalOffer | string>>;

  constructor(config: RedisLockDriverConfig) {
    this.#config = Object.freeze({ ...config });
    const { settings } = config;
    this.layout = new RedisKeyLayout(settings.prefix);
    this.#calls = new RedisCalls(config);
    this.#replicas = settings.waitForReplicas > 0 ? new ReplicaAcknowledgement(this.#calls, settings, config.target) : undefined;
    this.#localLines = settings.localPasses > 0 && settings.waitForReplicas === 0 ? new CohortLines(settings.localPasses) : undefined;
    this.setPasses = this.#localLines === undefined ? 0 : settings.localPasses;
    this.#cohorts =
      this.#localLines === undefined
        ? undefined
        : new ProcessCohorts(settings.localPasses, this.#localLines, (cohort) => void this.#giveBack(cohort).catch(() => undefined));
    this.#queue = {
      attempt: (request, waiterId) => this.#attempt(request, waiterId),
      leave: (request, waiterId) => this.#calls.run("leave", LEAVE_QUEUE_SCRIPT, [this.layout.tag(request.key)], [request.ownerSecret, waiterId]),
      listen: (key, listener) => this.#calls.listen(this.layout.releaseChannel(key), listener),
      waiterLeaseMs: settings.waiterLeaseMs,
      claimHandOffs: settings.waitForReplicas > 0,
      ...(this.#localLines === undefined ? {} : { joinLocalLine: this.#localLines.join.bind(this.#localLines) }),
    };
    this.#keySets = new KeySets({
      calls: this.#calls,
      layout: this.layout,
      cluster: config.client.isCluster === true,
      fallbackRetryMs: settings.commandTimeoutMs,
    });
    this.semaphores = new RedisSemaphoreDriver({
      layout: this.layout,
      calls: this.#calls,
      cluster: config.client.isCluster === true,
      waiterLeaseMs: settings.waiterLeaseMs,
      lingerMs: settings.unsubscribeDelayMs,
      renewBatchSize: settings.renewBatchSize,
      localPasses: settings.localPasses,
    });
    this.#acquireOutcomes = {
      ...this.#calls.scriptOutcomes("acquire", QUEUED_ACQUIRE_SCRIPT),
      value: (reply, call) => this.#attempted(reply as AcquireReply, call),
      late: (reply, { request }) => {
        if (isGrantReply(reply as AcquireReply)) void this.release(request.key, request.ownerSecret).catch(() => undefined);
      },
    };
    this.#releaseOutcomes = {
      ...this.#calls.scriptOutcomes("release", QUEUED_RELEASE_SCRIPT),
      value: (reply, { request }) => releaseResult(reply as ReleaseReply, request, this.#localLines),
    };
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverGranted | DriverRefused> {
    const passed = this.#cohorts?.take(request);
    return passed === undefined ? this.#attempt(request, undefined) : Promise.resolve(passed);
  }

  isWatching(key: string): boolean {
    return this.#calls.listening && this.#calls.isListening(this.layout.releaseChannel(key));
  }

  /** Queues on the server and takes the lock when a release hands it over (FIFO across processes). */
  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    const inCohort = this.#cohorts?.wait(request, wait);
    if (inCohort === undefined) return this.#waitInServerLine(request, wait.signal);
    return inCohort.then((granted) => granted ?? this.#waitInServerLine(request, wait.signal));
  }

  /** Every key of a set or none, one script per Cluster slot; waits for the replicas like a single grant when asked to. */
  async tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    const result = await this.#keySets.tryAcquireAll(requests);
    const [first] = requests;
    if (!Array.isArray(result) || this.#replicas === undefined || first === undefined) return result;
    const giveBack = () =>
      this.releaseAll(
        requests.map(({ key }) => key),
        first.ownerSecret,
      );
    await this.#replicas.await(first.key, this.#calls.connects, giveBack);
    return result;
  }

  /**
   * A set moved to a new owner of this process (see "Set passes" in core's README), one script per Cluster slot; no
   * replica wait, as for a hold passed in a cohort.
   */
  passAll(requests: readonly DriverAcquireRequest[], fromSecret: string): Promise<DriverGranted[] | DriverRefused> {
    return this.#keySets.passAll(requests, fromSecret);
  }

  /**
   * One level of each key dropped, one script per Cluster slot (no local passes: a waiter here hears the server's
   * hand-off). A set never holds a key through a cohort: its requests are not fresh owners'.
   */
  releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    return this.#keySets.releaseAll(keys, ownerSecret);
  }

  /** Extends leases; a cohort's holder renews the cohort's server hold. */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const batching = { cluster: this.#config.client.isCluster === true, batchSize: this.#config.settings.renewBatchSize };
    const renew = (sent: readonly DriverRenewal[]) =>
      renewInBatches(
        this.#calls,
        LOCK_RENEW_SCRIPT,
        sent.map(({ key }) => this.layout.lockKey(key)),
        sent,
        batching,
      );
    return this.#cohorts === undefined ? renew(renewals) : this.#cohorts.renew(renewals, renew);
  }

  /** Drops one level; at zero the lock goes to the next waiter of this process (within `localPasses`) or to the line. */
  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    const inCohort = this.#cohorts?.release(key, ownerSecret);
    if (inCohort !== undefined) return inCohort === "passed" ? Promise.resolve(FREED) : this.#giveBack(inCohort);
    const keys = [this.layout.tag(key)];
    const owner = ownerPrefix(ownerSecret);
    const lines = this.#localLines;
    const waiter = lines?.next(key, ownerSecret);
    const call: ScriptCall<LocalOffer | string> =
      lines === undefined || waiter === undefined
        ? { keys, args: [owner], request: key }
        : { keys, args: [owner, "", waiter.waiterId, lines.mayJump(key) ? "1" : "0"], request: { key, waiter, sentAt: monotonicNow() } };
    return this.#calls.runBounded(QUEUED_RELEASE_SCRIPT, call, this.#releaseOutcomes);
  }

  async inspect(key: string): Promise<LockState | null> {
    const reply = (await this.#calls.run("inspect", INSPECT_SCRIPT, [this.layout.tag(key)], [])) as [number, string, number, string, number, number];
    if (reply[0] !== 1) return null;
    const [, holder, holdCount, token, leftMs, waiters] = reply;
    return { key, holder, holdCount: Number(holdCount), fencingToken: BigInt(token), ttlRemainingMs: Math.max(0, Number(leftMs)), waiters: Number(waiters) };
  }

  list(prefix: string, limit: number): Promise<LockState[]> {
    return listHeld(this.#config.client, this.#calls, this.layout, prefix, limit, (key) => this.inspect(key));
  }

  async forceRelease(key: string): Promise<boolean> {
    this.#cohorts?.drop(key);
    return (await this.#calls.run("forceRelease", QUEUED_FORCE_RELEASE_SCRIPT, [this.layout.tag(key)], [])) === 1;
  }

  /** Gives cohorts' holds back, then disconnects at once: the provider has already released its holds. */
  async close(): Promise<void> {
    await Promise.allSettled((this.#cohorts?.endAll() ?? []).map((cohort) => this.#giveBack(cohort)));
    await this.#calls.close();
  }

  /** One queue-aware attempt; with a `waiterId` a refusal queues (or refreshes) that waiter. */
  #attempt(request: DriverAcquireRequest, waiterId: string | undefined): Promise<DriverGranted | LineRefusal> {
    const { ttlMs, holder } = request;
    const owner = ownerPrefix(request.ownerSecret);
    const args = waiterId === undefined ? [owner, ttlMs, holder] : [owner, ttlMs, holder, waiterId, this.#config.settings.waiterLeaseMs];
    const sentAt = monotonicNow();
    const call = { keys: [this.layout.tag(request.key)], args, request, sentAt };
    return this.#calls.runBounded(QUEUED_ACQUIRE_SCRIPT, call, this.#acquireOutcomes, sentAt);
  }

  /** An attempt's result; a fresh hold waits for the replicas first when `waitForReplicas` asks it to. */
  #attempted(reply: AcquireReply, { request, sentAt }: AttemptCall): DriverGranted | LineRefusal | Promise<DriverGranted> {
    const result = attemptResult(reply, request, this.#config.settings.commandTimeoutMs);
    if (!result.acquired) return result;
    // A fresh grant (a string) took a free key with an empty line and reserved no token block; one through the line did.
    this.#cohorts?.granted(request, result, sentAt, 0, typeof reply !== "string");
    if (result.holdCount > 1 || this.#replicas === undefined) return result;
    return this.#replicas.await(request.key, this.#calls.connects, () => this.release(request.key, request.ownerSecret)).then(() => result);
  }

  /** Waits in the server's line; a grant there to a fresh owner starts a process cohort. */
  #waitInServerLine(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    const waiting = waitInServerLine(this.#queue, request, signal);
    const cohorts = this.#cohorts;
    if (cohorts === undefined) return waiting;
    return waiting.then((granted: ServerLineGrant) => {
      // A grant from the line (a hand-off or a pass); one this wait's own attempt made is recorded already.
      cohorts.granted(request, granted, granted.grantedAt as number, granted.queued, true);
      return granted;
    });
  }

  /** Gives a cohort's hold back to the server (`giveBackCall`); a cohort that passed something is told when that fails. */
  #giveBack(cohort: ProcessCohort): Promise<{ held: boolean; holdCount: number }> {
    const sent = this.#calls.runBounded(QUEUED_RELEASE_SCRIPT, giveBackCall(this.layout, cohort), this.#releaseOutcomes);
    if (cohort.passes === 0) return sent;
    return sent.catch((error: unknown) => {
      this.#cohorts?.giveBackFailed(cohort);
      throw error;
    });
  }
}
