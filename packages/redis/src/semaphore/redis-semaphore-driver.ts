import { PermitsMismatchError, type SemaphoreState } from "@distlock/core";
import type { DriverAcquireResult, DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { RedisKeyLayout } from "../keys/redis-key-layout.js";
import { slotBatches } from "../keys/slot-batches.js";
import type { RedisScript } from "../scripts/redis-script.js";
import type { ChannelListener } from "../waiting/release-subscriber.js";
import { type QueueAccess, waitInQueue } from "../waiting/wait-in-queue.js";
import {
  SEMAPHORE_ACQUIRE_SCRIPT,
  SEMAPHORE_INSPECT_SCRIPT,
  SEMAPHORE_LEAVE_SCRIPT,
  SEMAPHORE_RELEASE_SCRIPT,
  SEMAPHORE_RENEW_SCRIPT,
} from "./semaphore-scripts.js";
import { SemaphoreWaiters } from "./semaphore-waiters.js";

/** What the semaphores use of their lock driver: its key layout, its bounded script calls and its pub/sub connection. */
export interface RedisSemaphoreAccess {
  readonly layout: RedisKeyLayout;
  /** Runs a script, bounded by the command timeout, failing with `BackendUnavailableError`. */
  run(operation: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** Hears `channel` from the moment this resolves; returns the unsubscribe. */
  listen(channel: string, listener: ChannelListener): Promise<() => void>;
  /** True on a Cluster: renewals are batched per slot. */
  readonly cluster: boolean;
  readonly waiterLeaseMs: number;
  /** How long after its last waiter here a semaphore still counts as contended (the release channels' `unsubscribeDelayMs`). */
  readonly lingerMs: number;
  readonly renewBatchSize: number;
}

/** What the acquire script answers: a grant's token, a refusal's retry bound, or {stored permits} on a mismatch. */
type AcquireReply = string | number | [number];

/** What the release script answers: 1|0 (held), or {1|0, then waiter id, token, ttl ms per grant to a waiter of this driver}. */
type ReleaseReply = number | [number, ...(string | number)[]];

/**
 * Counting semaphores as atomic Lua scripts (see `semaphore-scripts.ts` for the data layout), waiting in a FIFO line
 * on the server; the script that frees permits grants them to the heads of the line and tells each grant to its
 * waiter's driver alone (on that driver's channel, or in the reply to its own release), with the lock's queue
 * refresh (which also picks up a grant whose message was lost) as safety net.
 */
export class RedisSemaphoreDriver implements SemaphoreDriver {
  readonly #access: RedisSemaphoreAccess;
  readonly #queue: QueueAccess;
  readonly #waiters: SemaphoreWaiters;

  constructor(access: RedisSemaphoreAccess) {
    this.#access = access;
    this.#waiters = new SemaphoreWaiters(semaphoreChannelPrefix(access.layout), access.listen, access.lingerMs);
    this.#queue = {
      attempt: (request, waiterId) => this.#attempt(request as DriverPermitRequest, waiterId),
      leave: (request, waiterId) => access.run("leave", SEMAPHORE_LEAVE_SCRIPT, [access.layout.tag(request.key)], [request.ownerSecret, waiterId]),
      listen: (name, listener, waiterId) => this.#waiters.listen(name, waiterId, listener),
      newWaiterId: () => this.#waiters.newWaiterId(),
      waiterLeaseMs: access.waiterLeaseMs,
      // The scripts grant a waiter its permits and tell it so, so the message is its permit (see semaphore-scripts.ts).
      claimHandOffs: false,
    };
  }

  /** True while a waiter of this driver waits on `name` (or did a moment ago): an acquire then joins the line at once, in one call that takes the permits if they are free. */
  isWatching(name: string): boolean {
    return this.#waiters.isWaiting(name);
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#attempt(request, undefined);
  }

  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    return waitInQueue(this.#queue, request, wait.signal);
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const { layout } = this.#access;
    const renewed = renewals.map(() => false);
    const tags = renewals.map(({ key }) => layout.tag(key));
    await Promise.all(
      slotBatches(tags, this.#access.cluster, this.#access.renewBatchSize).map(async (batch) => {
        const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, (renewals[i] as DriverRenewal).ttlMs]);
        const reply = (await this.#access.run(
          "renew",
          SEMAPHORE_RENEW_SCRIPT,
          batch.map((i) => tags[i] as string),
          args,
        )) as number[];
        batch.forEach((index, j) => {
          renewed[index] = reply[j] === 1;
        });
      }),
    );
    return renewed;
  }

  async release(name: string, ownerSecret: string): Promise<boolean> {
    const args = [ownerSecret, this.#waiters.channel];
    const reply = (await this.#access.run("release", SEMAPHORE_RELEASE_SCRIPT, [this.#access.layout.tag(name)], args)) as ReleaseReply;
    if (typeof reply === "number") return reply === 1;
    for (let i = 1; i + 2 < reply.length; i += 3) this.#waiters.deliver(`${reply[i]} ${reply[i + 1]} ${reply[i + 2]}`);
    return reply[0] === 1;
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    const reply = (await this.#access.run("inspect", SEMAPHORE_INSPECT_SCRIPT, [this.#access.layout.tag(name)], [])) as (string | number)[];
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

  /** One attempt; with a `waiterId` a refusal joins (or refreshes) that waiter's place in line. */
  async #attempt(request: DriverPermitRequest, waiterId: string | undefined): Promise<DriverAcquireResult> {
    const { key, ownerSecret, ttlMs, holder, permits, count } = request;
    const args = [ownerSecret, ttlMs, holder, permits, count, ...(waiterId === undefined ? [] : [waiterId, this.#access.waiterLeaseMs, this.#waiters.channel])];
    const reply = (await this.#access.run("acquire", SEMAPHORE_ACQUIRE_SCRIPT, [this.#access.layout.tag(key)], args).catch((error: unknown) => {
      // The script may still run (e.g. after a command timeout): a release sent now runs after it and gives back what
      // it granted, as nothing else will use this fresh owner secret.
      void this.release(key, ownerSecret).catch(() => undefined);
      throw error;
    })) as AcquireReply;
    if (Array.isArray(reply)) throw new PermitsMismatchError(key, permits, Number(reply[0]));
    if (typeof reply === "number") return { acquired: false, retryAfterMs: reply };
    return { acquired: true, fencingToken: BigInt(reply), holdCount: 1, ttlMs };
  }
}

/** What every driver's own semaphore channel starts with (a random client id follows). */
function semaphoreChannelPrefix(layout: RedisKeyLayout): string {
  return `${layout.prefix}:sem:waiters:`;
}
