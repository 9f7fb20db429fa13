import { BackendUnavailableError, type LockCapabilities, type LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { CallDeadlines, type CallOutcomes, firstHeld, monotonicNow } from "@distlock/core/internal";
import type { Cluster, Redis } from "ioredis";
import type { ProcessCohort } from "./cohorts/process-cohort.js";
import { ProcessCohorts } from "./cohorts/process-cohorts.js";
import { LastConnectionError } from "./connection/last-connection-error.js";
import type { RespConnection } from "./connection/resp-connection.js";
import { RedisKeyLayout } from "./keys/redis-key-layout.js";
import { scanNames } from "./keys/scan-names.js";
import { slotBatches } from "./keys/slot-batches.js";
import type { ResolvedRedisLockOptions } from "./options/redis-lock-provider-options.js";
import { INSPECT_SCRIPT, RENEW_SCRIPT } from "./scripts/lock-scripts.js";
import { LEAVE_QUEUE_SCRIPT, QUEUED_ACQUIRE_SCRIPT, QUEUED_FORCE_RELEASE_SCRIPT, QUEUED_RELEASE_SCRIPT } from "./scripts/queue-scripts.js";
import type { RedisScript, ScriptTarget } from "./scripts/redis-script.js";
import { ownerPrefix } from "./scripts/stored-hold.js";
import { RedisSemaphoreDriver } from "./semaphore/redis-semaphore-driver.js";
import { LocalLines, type LocalWaiter } from "./waiting/local-lines.js";
import { type ChannelListener, ReleaseSubscriber } from "./waiting/release-subscriber.js";
import { type QueueAccess, type QueuedGrant, waitInQueue } from "./waiting/wait-in-queue.js";

/** The calls the driver makes on its command connection: ioredis's, or the lean `RespConnection`. */
interface RedisCommands extends ScriptTarget {
  wait(replicas: number, timeoutMs: number): Promise<unknown>;
}

/** What a `RedisLockDriver` runs on. */
export interface RedisLockDriverConfig {
  /** Pub/sub comes from its duplicates; it also carries the lock calls unless `commands` does. */
  readonly client: Redis | Cluster;
  /** A lean connection the driver made for the lock calls (it then owns it, as it owns `client`). */
  readonly commands?: RespConnection | undefined;
  /** True when the driver created `client` and must close it. */
  readonly ownsClient: boolean;
  readonly settings: ResolvedRedisLockOptions;
  /** Where the client points, credentials masked, for messages. */
  readonly target: string;
}

/** What the acquire script answers: a fresh grant's token, a refusal's remaining lease, or {1|2, token, holdCount, ttl left}. */
type AcquireReply = string | number | [number, string, number, number];

/** A release that offered the lock to a waiter of this process: the key, that waiter, and when it was sent. */
interface LocalOffer {
  readonly key: string;
  readonly waiter: LocalWaiter;
  readonly sentAt: number;
}

/** What the release script answers: the hold count left, -1 when not held, or {token, ttl ms, jumped 1|0, waiters left} for a local pass. */
type ReleaseReply = number | [string, number, number, number];

/** One script call on the hot path: what it sent (for a resend after NOSCRIPT) and the request it serves. */
interface ScriptCall<R> {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly request: R;
}

/** An acquire attempt's call, and when it was sent (a grant's lease started after it). */
interface AttemptCall extends ScriptCall<DriverAcquireRequest> {
  readonly sentAt: number;
}

const NOT_HELD = Object.freeze({ held: false, holdCount: 0 });
const FREED = Object.freeze({ held: true, holdCount: 0 });

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
  readonly #client: Redis | Cluster;
  readonly #target: RedisCommands;
  readonly #subscriber: ReleaseSubscriber;
  readonly #connectionErrors = new LastConnectionError();
  #warnedAboutWait = false;
  readonly #queue: QueueAccess;
  readonly #deadlines = new CallDeadlines();
  /** The hot path's outcomes, made once: an acquire or release allocates no closures of its own. */
  readonly #acquireOutcomes: CallOutcomes<unknown, DriverAcquireResult, AttemptCall>;
  /** A release's request is its key, or the offer it made to a waiter here. */
  readonly #releaseOutcomes: CallOutcomes<unknown, { held: boolean; holdCount: number }, ScriptCall<LocalOffer | string>>;
  /** Undefined when releases pass nothing locally (`localPasses` 0, or `waitForReplicas`: a grant must be claimed). */
  readonly #localLines: LocalLines | undefined;
  /** The keys held here that pass among this process's fresh owners without a server call; undefined with `#localLines`. */
  readonly #cohorts: ProcessCohorts | undefined;
  readonly #anyOutcomes: CallOutcomes<unknown, unknown, string>;

  constructor(config: RedisLockDriverConfig) {
    this.#config = Object.freeze({ ...config });
    this.#client = config.client;
    this.#target = config.commands ?? (config.client as unknown as RedisCommands);
    this.layout = new RedisKeyLayout(config.settings.prefix);
    const { localPasses, waitForReplicas } = config.settings;
    this.#localLines = localPasses > 0 && waitForReplicas === 0 ? new LocalLines(localPasses) : undefined;
    this.#cohorts =
      this.#localLines === undefined
        ? undefined
        : new ProcessCohorts(localPasses, this.#localLines, (cohort) => void this.#giveBack(cohort).catch(() => undefined));
    // The client connects too once `list` scans on it, so its errors are tracked even when `commands` carries the lock calls.
    if (config.ownsClient) for (const connection of [config.commands, config.client]) if (connection !== undefined) this.#connectionErrors.track(connection);
    this.#subscriber = new ReleaseSubscriber({
      connect: () => this.#connectionErrors.track(config.client.isCluster ? (config.client as Cluster).duplicate() : (config.client as Redis).duplicate()),
      bound: (operation, call) => this.#bound(operation, call),
      unsubscribeDelayMs: config.settings.unsubscribeDelayMs,
    });
    this.#queue = {
      attempt: (request, waiterId) => this.#attempt(request, waiterId),
      leave: (request, waiterId) => this.#run("leave", LEAVE_QUEUE_SCRIPT, [this.layout.tag(request.key)], [request.ownerSecret, waiterId]),
      listen: (key, listener) => this.#listen(this.layout.releaseChannel(key), listener),
      waiterLeaseMs: config.settings.waiterLeaseMs,
      claimHandOffs: config.settings.waitForReplicas > 0,
      ...(this.#localLines === undefined ? {} : { joinLocalLine: this.#localLines.join.bind(this.#localLines) }),
    };
    this.semaphores = new RedisSemaphoreDriver({
      layout: this.layout,
      run: (operation, script, keys, args) => this.#run(operation, script, keys, args),
      listen: (channel, listener) => this.#listen(channel, listener),
      cluster: config.client.isCluster === true,
      waiterLeaseMs: config.settings.waiterLeaseMs,
      lingerMs: config.settings.unsubscribeDelayMs,
      renewBatchSize: config.settings.renewBatchSize,
      localPasses: config.settings.localPasses,
    });
    this.#anyOutcomes = {
      value: (reply) => reply,
      error: (error, operation) => this.#failure(operation, error),
      timedOut: (timeoutMs, operation) => this.#timedOut(operation, timeoutMs),
    };
    this.#acquireOutcomes = {
      ...this.#scriptOutcomes("acquire", QUEUED_ACQUIRE_SCRIPT),
      value: (reply, call) => this.#acquireResult(reply as AcquireReply, call),
      late: (reply, { request }) => this.#releaseLateGrant(request.key, request.ownerSecret, reply),
    };
    this.#releaseOutcomes = {
      ...this.#scriptOutcomes("release", QUEUED_RELEASE_SCRIPT),
      value: (reply, { request }) => {
        const left = reply as ReleaseReply;
        if (typeof left !== "number") return this.#passedLocally(request as LocalOffer, left);
        if (left === 0) this.#localLines?.passed(typeof request === "string" ? request : request.key, false);
        return left === 0 ? FREED : left < 0 ? NOT_HELD : { held: true, holdCount: left };
      },
    };
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const passed = this.#cohorts?.take(request);
    return passed === undefined ? this.#attempt(request, undefined) : Promise.resolve(passed);
  }

  isWatching(key: string): boolean {
    // Asked on every acquire: with nothing subscribed, no channel name is built.
    return this.#subscriber.channelCount > 0 && this.#subscriber.isSubscribed(this.layout.releaseChannel(key));
  }

  /** Queues on the server and takes the lock when a release hands it over (FIFO across processes). */
  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    const inCohort = this.#cohorts?.wait(request, wait.signal);
    if (inCohort === undefined) return this.#waitInQueue(request, wait.signal);
    return inCohort.then((granted) => granted ?? this.#waitInQueue(request, wait.signal));
  }

  /** Extends leases; a cohort's holder renews the cohort's server hold. */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#cohorts === undefined ? this.#renew(renewals) : this.#cohorts.renew(renewals, (sent) => this.#renew(sent));
  }

  async #renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const renewed = renewals.map(() => false);
    await Promise.all(
      this.#renewalBatches(renewals).map(async (batch) => {
        const keys = batch.map((i) => this.layout.lockKey((renewals[i] as DriverRenewal).key));
        const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, (renewals[i] as DriverRenewal).ttlMs]);
        const reply = (await this.#run("renew", RENEW_SCRIPT, keys, args)) as number[];
        batch.forEach((index, j) => {
          renewed[index] = reply[j] === 1;
        });
      }),
    );
    return renewed;
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
    return this.#sendRelease(call);
  }

  async inspect(key: string): Promise<LockState | null> {
    const reply = (await this.#run("inspect", INSPECT_SCRIPT, [this.layout.tag(key)], [])) as [number, string, number, string, number, number];
    if (reply[0] !== 1) return null;
    const [, holder, holdCount, token, leftMs, waiters] = reply;
    return { key, holder, holdCount: Number(holdCount), fencingToken: BigInt(token), ttlRemainingMs: Math.max(0, Number(leftMs)), waiters: Number(waiters) };
  }

  /**
   * SCAN (MATCH on the lock holds under `prefix`, escaped) of the server, or of every master of a Cluster; then the
   * first `limit` keys, each read atomically by the script `inspect` runs. A key taken during the walk may be missed.
   */
  async list(prefix: string, limit: number): Promise<LockState[]> {
    const pattern = this.layout.lockKeyPattern(prefix);
    const servers = await this.#scanTargets();
    const found = await Promise.all(
      servers.map((server) => scanNames((cursor, match, count) => this.#bound("list", server.scan(cursor, "MATCH", match, "COUNT", count)), pattern)),
    );
    return firstHeld(this.layout.keysOfLockKeys(found), limit, (key) => this.inspect(key));
  }

  async forceRelease(key: string): Promise<boolean> {
    this.#cohorts?.drop(key);
    return (await this.#run("forceRelease", QUEUED_FORCE_RELEASE_SCRIPT, [this.layout.tag(key)], [])) === 1;
  }

  /** Disconnects at once (no QUIT round trip): the provider has already released its holds, and nothing may wait on a dead server. */
  async close(): Promise<void> {
    await Promise.allSettled((this.#cohorts?.endAll() ?? []).map((cohort) => this.#giveBack(cohort)));
    await this.#subscriber.close();
    this.#config.commands?.disconnect();
    if (this.#config.ownsClient) this.#client.disconnect();
  }

  /** The servers a SCAN must walk: the one server, or every master of a Cluster (once the cluster knows them). */
  async #scanTargets(): Promise<Redis[]> {
    if (!this.#client.isCluster) return [this.#client as Redis];
    const cluster = this.#client as Cluster;
    if (cluster.nodes("master").length === 0) await this.#bound("list", cluster.ping());
    return cluster.nodes("master");
  }

  /** Index groups of `renewals`, one per script call: one Cluster slot each, at most `renewBatchSize` long. */
  #renewalBatches(renewals: readonly DriverRenewal[]): number[][] {
    const keys = renewals.map(({ key }) => this.layout.lockKey(key));
    return slotBatches(keys, this.#client.isCluster === true, this.#config.settings.renewBatchSize);
  }

  /**
   * One queue-aware attempt; with a `waiterId` a refusal queues (or refreshes) that waiter. The reply's type tells the
   * outcome: a fresh grant's token (string), a refusal's remaining lease (number), or a re-entry or claim (array).
   */
  #attempt(request: DriverAcquireRequest, waiterId: string | undefined): Promise<DriverAcquireResult> {
    const { ttlMs, holder } = request;
    const owner = ownerPrefix(request.ownerSecret);
    const args = waiterId === undefined ? [owner, ttlMs, holder] : [owner, ttlMs, holder, waiterId, this.#config.settings.waiterLeaseMs];
    const sentAt = monotonicNow();
    const call = { keys: [this.layout.tag(request.key)], args, request, sentAt };
    return this.#runBounded(QUEUED_ACQUIRE_SCRIPT, call, this.#acquireOutcomes, sentAt);
  }

  /** The acquire script's reply as a result; a fresh hold waits for the replicas first when `waitForReplicas` asks it to. */
  #acquireResult(reply: AcquireReply, { request, sentAt }: AttemptCall): DriverAcquireResult | Promise<DriverAcquireResult> {
    if (typeof reply === "number") return { acquired: false, retryAfterMs: reply >= 0 ? reply : this.#config.settings.commandTimeoutMs };
    const fresh = typeof reply === "string";
    const result: DriverGranted = fresh
      ? { acquired: true, fencingToken: BigInt(reply), holdCount: 1, ttlMs: request.ttlMs }
      : { acquired: true, fencingToken: BigInt(reply[1]), holdCount: Number(reply[2]), ttlMs: Number(reply[3]) };
    // A fresh grant (a string) took a free key with an empty line and reserved no token block; one through the line did.
    this.#cohorts?.granted(request, result, sentAt, 0, !fresh);
    if (result.holdCount > 1 || this.#config.settings.waitForReplicas === 0) return result;
    return this.#awaitReplicas(request.key, request.ownerSecret).then(() => result);
  }

  /** The release script passed the lock to `offer.waiter`: counts the pass and hands the waiter its grant. */
  #passedLocally(offer: LocalOffer, [token, ttlMs, jumped, queued]: [string, number, number, number]): typeof FREED {
    this.#localLines?.passed(offer.key, jumped === 1);
    offer.waiter.take({ fencingToken: BigInt(token), ttlMs: Number(ttlMs), grantedAt: offer.sentAt, keepsLease: false, queued: Number(queued) });
    return FREED;
  }

  /** Waits in the server's line; a grant there to a fresh owner starts a process cohort. */
  #waitInQueue(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    const waiting = waitInQueue(this.#queue, request, signal);
    const cohorts = this.#cohorts;
    if (cohorts === undefined) return waiting;
    return waiting.then((granted: QueuedGrant) => {
      // A grant from the line (a hand-off or a pass); one this wait's own attempt made is recorded already.
      cohorts.granted(request, granted, granted.grantedAt as number, granted.queued, true);
      return granted;
    });
  }

  /**
   * Gives a cohort's hold back to the server: owner-checked under its server secret, the token counter lowered to the
   * last token passed here, the stale places of waiters passed here dropped, and the key handed to the head of the line.
   */
  #giveBack(cohort: ProcessCohort): Promise<{ held: boolean; holdCount: number }> {
    const keys = [this.layout.tag(cohort.key)];
    // A cohort that passed nothing releases as any hold does (the script lowers the counter to the hold's own token), and
    // so may its holder's retry after a failure.
    const owner = ownerPrefix(cohort.serverSecret);
    if (cohort.passes === 0) return this.#sendRelease({ keys, args: [owner], request: cohort.key });
    const args = [owner, cohort.lastToken.toString(), "", "0", ...cohort.leftLine];
    return this.#sendRelease({ keys, args, request: cohort.key }).catch((error: unknown) => {
      this.#cohorts?.giveBackFailed(cohort);
      throw error;
    });
  }

  #sendRelease(call: ScriptCall<LocalOffer | string>): Promise<{ held: boolean; holdCount: number }> {
    return this.#runBounded(QUEUED_RELEASE_SCRIPT, call, this.#releaseOutcomes);
  }

  /** A hot-path script call bounded by `commandTimeoutMs`: on the lean connection, which bounds it itself, else on ioredis. */
  #runBounded<R, C extends ScriptCall<unknown>>(script: RedisScript, call: C, outcomes: CallOutcomes<unknown, R, C>, sentAt?: number): Promise<R> {
    const timeoutMs = this.#config.settings.commandTimeoutMs;
    const lean = this.#config.commands;
    if (lean !== undefined) return lean.runScript(script, call.keys, call.args, timeoutMs, outcomes, call, sentAt);
    return this.#deadlines.settle(script.send(this.#target, call.keys, call.args), timeoutMs, outcomes, call);
  }

  #releaseLateGrant(key: string, ownerSecret: string, reply: unknown): void {
    if (typeof reply !== "number") void this.release(key, ownerSecret).catch(() => undefined);
  }

  async #awaitReplicas(key: string, ownerSecret: string): Promise<void> {
    const { waitForReplicas, waitForReplicasTimeoutMs } = this.#config.settings;
    let acknowledged: number;
    try {
      acknowledged = Number(await this.#bound("wait", this.#target.wait(waitForReplicas, waitForReplicasTimeoutMs), waitForReplicasTimeoutMs));
    } catch (error) {
      if (error instanceof Error && /unknown command|not allowed|NOPERM/i.test(error.message)) return this.#warnNoWait(error);
      await this.release(key, ownerSecret).catch(() => undefined);
      throw this.#failure("wait", error);
    }
    if (acknowledged >= waitForReplicas) return;
    await this.release(key, ownerSecret).catch(() => undefined);
    throw new BackendUnavailableError(
      "redis",
      `only ${acknowledged} of ${waitForReplicas} replicas acknowledged the acquisition of "${key}" on ${this.#config.target} within ${waitForReplicasTimeoutMs} ms; it was released again`,
    );
  }

  #warnNoWait(error: Error): void {
    if (this.#warnedAboutWait) return;
    this.#warnedAboutWait = true;
    process.emitWarning(`${this.#config.target} refuses WAIT (${error.message}); distlock acquires without replica acknowledgement.`, {
      code: "DISTLOCK_REDIS_NO_WAIT",
    });
  }

  #listen(channel: string, listener: ChannelListener): Promise<() => void> {
    return this.#subscriber.listen(channel, listener).catch((error: unknown) => {
      throw this.#failure("subscribe", error);
    });
  }

  /** A script call bounded by `commandTimeoutMs`: on the lean connection, which bounds it itself, when the driver has one. */
  #run(operation: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const lean = this.#config.commands;
    if (lean === undefined || !script.takes(keys)) return this.#bound(operation, script.run(this.#target, keys, args));
    return lean.runScript(script, keys, args, this.#config.settings.commandTimeoutMs, this.#anyOutcomes, operation);
  }

  /** Bounds a server call by `commandTimeoutMs` (plus `extraMs`) and maps its failure to `BackendUnavailableError`. */
  #bound<T>(operation: string, call: Promise<T>, extraMs = 0): Promise<T> {
    return this.#deadlines.settle(call, this.#config.settings.commandTimeoutMs + extraMs, this.#anyOutcomes as CallOutcomes<T, T, string>, operation);
  }

  /** What every hot-path script call does with a failure, a timeout and a lost script; its answer is the caller's. */
  #scriptOutcomes<R>(operation: string, script: RedisScript): Omit<CallOutcomes<unknown, R, ScriptCall<unknown>>, "value"> {
    return {
      error: (error) => this.#failure(operation, error),
      timedOut: (timeoutMs) => this.#timedOut(operation, timeoutMs),
      retry: (error, call) => script.resend(error, this.#target, call.keys, call.args),
    };
  }

  #timedOut(operation: string, timeoutMs: number): Error {
    return this.#failure(operation, new Error(`no answer within ${timeoutMs} ms`));
  }

  #failure(operation: string, error: unknown): Error {
    if (BackendUnavailableError.is(error)) return error;
    return new BackendUnavailableError("redis", `${operation} on ${this.#config.target} failed: ${this.#connectionErrors.explain(error)}`, { cause: error });
  }
}
