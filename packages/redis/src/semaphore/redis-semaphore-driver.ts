import { PermitsMismatchError, type SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow } from "@distlock/core/internal";
import type { RedisCalls } from "../connection/redis-calls.js";
import type { RedisKeyLayout } from "../keys/redis-key-layout.js";
import { renewInBatches } from "../scripts/renew-in-batches.js";
import { CohortLines } from "../waiting/cohort-lines.js";
import { type LineRefusal, lineRefusal, type ServerLineAccess, waitInServerLine } from "../waiting/wait-in-server-line.js";
import type { CohortGrant, PassTarget } from "./permit-cohort.js";
import { PermitCohorts } from "./permit-cohorts.js";
import { PassRefusal, SEMAPHORE_PASS_SCRIPT } from "./semaphore-pass-script.js";
import { SEMAPHORE_ACQUIRE_SCRIPT, SEMAPHORE_LEAVE_SCRIPT, SEMAPHORE_RELEASE_SCRIPT } from "./semaphore-scripts.js";
import { SEMAPHORE_INSPECT_SCRIPT, SEMAPHORE_RENEW_SCRIPT } from "./semaphore-state-scripts.js";
import { SemaphoreWaiters } from "./semaphore-waiters.js";

/** What the semaphores use of their lock driver: its key layout, its bounded script calls and its pub/sub connection. */
export interface RedisSemaphoreAccess {
  readonly layout: RedisKeyLayout;
  /** The lock driver's calls: scripts bounded by the command timeout, release channels, failures as `BackendUnavailableError`. */
  readonly calls: RedisCalls;
  /** True on a Cluster: renewals are batched per slot. */
  readonly cluster: boolean;
  readonly waiterLeaseMs: number;
  /** How long after its last waiter here a semaphore still counts as contended (the release channels' `unsubscribeDelayMs`). */
  readonly lingerMs: number;
  readonly renewBatchSize: number;
  /** Passes in a row of a one-permit grant among this process's acquirers while others wait (see "Permit cohorts"); 0: none. */
  readonly localPasses: number;
}

/** What the acquire script answers: a grant's token, a refusal's retry bound (a waiter's: {0, the fencing counter, the bound}), or {stored permits} on a mismatch. */
type AcquireReply = string | number | [number] | [0, string, number];

/** What the release script answers: 1|0 (held), or {1|0, then waiter id, token, ttl ms, waiters left per grant to a waiter of this driver}. */
type ReleaseReply = number | [number, ...(string | number)[]];

/** What the pass script answers: {token, waiters in the server's line, free permits}, or a `PassRefusal`. */
type PassReply = number | [string, number, number];

/**
 * Counting semaphores as atomic Lua scripts (see `semaphore-scripts.ts` for the data layout), waiting in a FIFO line
 * on the server; the script that frees permits grants them to the heads of the line and tells each grant to its
 * waiter's driver alone (on that driver's channel, or in the reply to its own release), with the lock's queue
 * refresh (which also picks up a grant whose message was lost) as safety net.
 */
export class RedisSemaphoreDriver implements SemaphoreDriver {
  readonly #access: RedisSemaphoreAccess;
  readonly #queue: ServerLineAccess;
  /** `#queue` for one-permit waiters while cohorts are on: a refused waiter joins this process's line too, where a pass may reach it. */
  readonly #cohortQueue: ServerLineAccess;
  readonly #waiters: SemaphoreWaiters;
  /** Undefined with `localPasses` 0. */
  readonly #cohorts: PermitCohorts | undefined;

  constructor(access: RedisSemaphoreAccess) {
    this.#access = access;
    this.#waiters = new SemaphoreWaiters(semaphoreChannelPrefix(access.layout), access.calls.listen, access.lingerMs);
    this.#queue = {
      attempt: (request, waiterId) => this.#attempt(request as DriverPermitRequest, waiterId),
      leave: (request, waiterId) => access.calls.run("leave", SEMAPHORE_LEAVE_SCRIPT, [access.layout.tag(request.key)], [request.ownerSecret, waiterId]),
      listen: (name, listener, waiterId) => this.#waiters.listen(name, waiterId, listener),
      newWaiterId: () => this.#waiters.newWaiterId(),
      waiterLeaseMs: access.waiterLeaseMs,
      // The scripts grant a waiter its permits and tell it so, so the message is its permit (see semaphore-scripts.ts).
      claimHandOffs: false,
    };
    const serverLines = access.localPasses > 0 ? new CohortLines(access.localPasses) : undefined;
    this.#cohorts = serverLines === undefined ? undefined : new PermitCohorts(access.localPasses, access.waiterLeaseMs, serverLines);
    this.#cohortQueue = serverLines === undefined ? this.#queue : { ...this.#queue, joinLocalLine: serverLines.join.bind(serverLines) };
  }

  /** True while a waiter of this driver waits on `name` (or did a moment ago): an acquire then joins the line at once, in one call that takes the permits if they are free. */
  isWatching(name: string): boolean {
    return this.#waiters.isWaiting(name) || this.#cohorts?.has(name) === true;
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#attempt(request, undefined);
  }

  /** Waits for a pass in this process's cohort of the semaphore where one may come, else (or then) in the server's line. */
  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    const local = this.#cohorts?.wait(request, wait);
    if (local === undefined) return this.#waitInLine(request, wait.signal);
    return local.then((granted) => granted ?? this.#waitInLine(request, wait.signal));
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const { layout, calls, cluster, renewBatchSize } = this.#access;
    const tags = renewals.map(({ key }) => layout.tag(key));
    const renewed = await renewInBatches(calls, SEMAPHORE_RENEW_SCRIPT, tags, renewals, { cluster, batchSize: renewBatchSize });
    const cohorts = this.#cohorts;
    if (cohorts !== undefined) for (const [i, { key, ownerSecret }] of renewals.entries()) if (!renewed[i]) cohorts.lost(key, ownerSecret);
    return renewed;
  }

  /** Passes a cohort's grant to the next acquirer here (within the bound), else gives the permits back to the server's line. */
  release(name: string, ownerSecret: string): Promise<boolean> {
    const grant = this.#cohorts?.grantOf(name, ownerSecret);
    return grant === undefined ? this.#giveBack(name, ownerSecret) : this.#passOn(grant);
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    const reply = (await this.#access.calls.run("inspect", SEMAPHORE_INSPECT_SCRIPT, [this.#access.layout.tag(name)], [])) as (string | number)[];
    if (reply[0] === 0) return null;
    const holders = [];
    let inUse = 0;
    for (let i = 2; i + 3 < reply.length; i += 4) {
      const count = Number(reply[i + 1]);
      inUse += count;
      holders.push({ holder: String(reply[i]), count, fencingToken: BigInt(reply[i + 2] as string), ttlRemainingMs: Math.max(0, Number(reply[i + 3])) });
    }
    return { name, permits: Number(reply[0]), inUse, holders, waiters: Number(reply[1]) };
  }

  /** The release script: the permits go back and on to the heads of the server's line. */
  async #giveBack(name: string, ownerSecret: string): Promise<boolean> {
    const args = [ownerSecret, this.#waiters.channel];
    const reply = (await this.#access.calls.run("release", SEMAPHORE_RELEASE_SCRIPT, [this.#access.layout.tag(name)], args)) as ReleaseReply;
    if (typeof reply === "number") return reply === 1;
    for (let i = 1; i + 3 < reply.length; i += 4) this.#waiters.deliver(`${reply[i]} ${reply[i + 1]} ${reply[i + 2]} ${reply[i + 3]}`);
    return reply[0] === 1;
  }

  /** Waits in the server's line; a one-permit grant from there that left others waiting joins the cohort. */
  #waitInLine(request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted> {
    const cohorts = this.#cohorts;
    if (cohorts === undefined || request.count !== 1) return waitInServerLine(this.#queue, request, signal);
    return waitInServerLine(this.#cohortQueue, request, signal).then((granted) => {
      cohorts.granted(request.key, request.ownerSecret, request.ttlMs, granted.queued);
      return granted;
    });
  }

  /**
   * The release of a cohort's grant by its holder: passed by the pass script to the next acquirer here while the bound
   * allows, else given back. Resolves once the server has answered, so true means the holder held the permit until then.
   */
  async #passOn(grant: CohortGrant): Promise<boolean> {
    const cohorts = this.#cohorts as PermitCohorts;
    /** A pass proved the releasing holder held the permit; later steps place a grant its target no longer wanted. */
    let held = false;
    for (let target = cohorts.nextTarget(grant); target !== undefined; target = cohorts.nextTarget(grant)) {
      const sentAt = monotonicNow();
      const reply = await this.#pass(grant, target);
      if (typeof reply !== "number") {
        const [token, queued, free] = reply;
        cohorts.passed(grant, target, Number(queued), Number(free));
        held = true;
        const granted = { acquired: true, fencingToken: BigInt(token), holdCount: 1, ttlMs: grant.ttlMs, grantedAt: sentAt } as const;
        if (target.receive(granted, Number(queued))) return true;
        continue;
      }
      if (reply === PassRefusal.notInLine) continue;
      target.fallBack();
      if (reply === PassRefusal.lost) {
        cohorts.end(grant);
        return held;
      }
      cohorts.yieldTo(grant);
      break;
    }
    cohorts.end(grant);
    return (await this.#giveBack(grant.name, grant.secret)) || held;
  }

  /** One pass of `grant` to `target`; a failed call ends the cohort's grant and sends `target` to the server's line. */
  async #pass(grant: CohortGrant, target: PassTarget): Promise<PassReply> {
    const args = [grant.secret, target.ownerSecret, grant.ttlMs, target.waiterId];
    try {
      return (await this.#access.calls.run("pass", SEMAPHORE_PASS_SCRIPT, [this.#access.layout.tag(grant.name)], args)) as PassReply;
    } catch (error) {
      // The pass may have run: the grant is then the target's, which its own attempt on the server finds.
      this.#cohorts?.end(grant);
      target.fallBack();
      throw error;
    }
  }

  /** One attempt; with a `waiterId` a refusal joins (or refreshes) that waiter's place in line. */
  async #attempt(request: DriverPermitRequest, waiterId: string | undefined): Promise<DriverGranted | LineRefusal> {
    const { key, ownerSecret, ttlMs, holder, permits, count } = request;
    const args = [ownerSecret, ttlMs, holder, permits, count, ...(waiterId === undefined ? [] : [waiterId, this.#access.waiterLeaseMs, this.#waiters.channel])];
    const reply = (await this.#access.calls.run("acquire", SEMAPHORE_ACQUIRE_SCRIPT, [this.#access.layout.tag(key)], args).catch((error: unknown) => {
      // The script may still run (e.g. after a command timeout): a release sent now runs after it and gives back what
      // it granted, as nothing else will use this fresh owner secret.
      void this.#giveBack(key, ownerSecret).catch(() => undefined);
      throw error;
    })) as AcquireReply;
    if (typeof reply === "number") return { acquired: false, retryAfterMs: reply };
    if (Array.isArray(reply) && reply.length === 3) return lineRefusal(reply[2], reply[1]);
    if (Array.isArray(reply)) throw new PermitsMismatchError(key, permits, Number(reply[0]));
    return { acquired: true, fencingToken: BigInt(reply), holdCount: 1, ttlMs };
  }
}

/** What every driver's own semaphore channel starts with (a random client id follows). */
function semaphoreChannelPrefix(layout: RedisKeyLayout): string {
  return `${layout.prefix}:sem:waiters:`;
}
