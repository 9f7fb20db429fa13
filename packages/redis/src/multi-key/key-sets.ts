import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { RedisCalls } from "../connection/redis-calls.js";
import type { RedisKeyLayout } from "../keys/redis-key-layout.js";
import { slotBatches } from "../keys/slot-batches.js";
import { FREED, NOT_HELD, releaseOutcome } from "../scripts/lock-replies.js";
import { TOKEN_BLOCK } from "../scripts/lua-functions.js";
import { ACQUIRE_ALL_SCRIPT, PASS_ALL_SCRIPT, RELEASE_ALL_SCRIPT } from "../scripts/multi-key-scripts.js";
import type { RedisScript } from "../scripts/redis-script.js";
import { ownerPrefix } from "../scripts/stored-hold.js";

/** What the multi-key scripts need of the driver. */
export interface KeySetAccess {
  readonly calls: RedisCalls;
  readonly layout: RedisKeyLayout;
  /** Keys are grouped by Cluster slot, one script call per slot. */
  readonly cluster: boolean;
  /** A refusal without a lease to wait out retries after this many ms. */
  readonly fallbackRetryMs: number;
}

/**
 * The acquire-all script's reply: the refusing key's ttl left; every key's fresh token, space separated (one token alone
 * when all the keys share it); or per key a fresh grant's token or a re-entry's {token, holdCount, ttl left}.
 */
type AcquireAllReply = number | string | Array<string | [string, number, number]>;

/**
 * Multi-key sets on Redis: one script per Cluster slot (one in all without a cluster), the slots taken one after the
 * other in the order of their first keys and given back if a later one refuses; released with one script per slot.
 */
export class KeySets {
  readonly #access: KeySetAccess;

  constructor(access: KeySetAccess) {
    this.#access = access;
  }

  /** Every request granted, or none and a refusal (see `LockDriver.tryAcquireAll`). */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    const [first] = requests;
    if (first === undefined) return Promise.resolve([]);
    const { ttlMs } = first;
    return this.#slotBySlot(
      requests,
      ACQUIRE_ALL_SCRIPT,
      [ownerPrefix(first.ownerSecret), ttlMs, first.holder],
      (left) => (left >= 0 ? left : this.#access.fallbackRetryMs),
      (reply) => {
        const entries = reply as Exclude<AcquireAllReply, number>;
        if (typeof entries === "string" && !entries.includes(" ")) {
          const grant: DriverGranted = Object.freeze({ acquired: true, fencingToken: BigInt(entries), holdCount: 1, ttlMs });
          return () => grant;
        }
        const each = typeof entries === "string" ? entries.split(" ") : entries;
        return (j) => keyGrant(each[j] as string | [string, number, number], ttlMs);
      },
    );
  }

  /**
   * Every key moved from `fromSecret`'s last level to the requests' owner with the next token (the `TOKEN_BLOCK` after
   * it reserved for passes here) and a fresh lease, one script per Cluster slot in order; or none and a refusal. See
   * `LockDriver.passAll`.
   */
  passAll(requests: readonly DriverAcquireRequest[], fromSecret: string): Promise<DriverGranted[] | DriverRefused> {
    const [first] = requests;
    if (first === undefined) return Promise.resolve([]);
    const { ttlMs } = first;
    return this.#slotBySlot(
      requests,
      PASS_ALL_SCRIPT,
      [ownerPrefix(fromSecret), ownerPrefix(first.ownerSecret), ttlMs, first.holder],
      () => 0,
      (reply) => {
        const tokens = (reply as string).split(" ");
        return (j) => ({ acquired: true, fencingToken: BigInt(tokens[j] as string), holdCount: 1, ttlMs, reservedTokens: TOKEN_BLOCK });
      },
    );
  }

  /** One level of each key's hold dropped for `ownerSecret`; one outcome per key, in order. */
  async releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    const { calls, layout } = this.#access;
    const owner = ownerPrefix(ownerSecret);
    const records = keys.map((key) => layout.lockKey(key));
    if (!this.#access.cluster) {
      const left = (await calls.run("release", RELEASE_ALL_SCRIPT, records, [owner])) as number | number[];
      return typeof left === "number" ? records.map(() => FREED) : left.map((count) => releaseOutcome(Number(count)));
    }
    const outcomes: Array<{ held: boolean; holdCount: number }> = keys.map(() => NOT_HELD);
    await Promise.all(
      this.#slots(records).map(async (slot) => {
        const left = (await calls.run("release", RELEASE_ALL_SCRIPT, slotRecords(records, slot), [owner])) as number | number[];
        slot.forEach((index, j) => {
          outcomes[index] = releaseOutcome(typeof left === "number" ? left : Number(left[j]));
        });
      }),
    );
    return outcomes;
  }

  /**
   * `script` with `args` on the requests' keys, one call per Cluster slot in the order of `#slots`. A call answering a
   * number refuses the set: `retryAfterMs` makes the refusal's wait of it, and the keys earlier slots took or moved are
   * given back, as they are when a call fails. Any other answer is the slot's: `grantOf` reads it, then gives the grant
   * of the slot's j-th key.
   */
  async #slotBySlot(
    requests: readonly DriverAcquireRequest[],
    script: RedisScript,
    args: readonly (string | number)[],
    retryAfterMs: (refusal: number) => number,
    grantOf: (reply: unknown) => (j: number) => DriverGranted,
  ): Promise<DriverGranted[] | DriverRefused> {
    const { calls, layout } = this.#access;
    const records = requests.map(({ key }) => layout.lockKey(key));
    if (!this.#access.cluster) {
      // One call for the whole set: nothing to give back when it refuses.
      const reply = await calls.run("acquire", script, records, args);
      if (typeof reply === "number") return { acquired: false, retryAfterMs: retryAfterMs(reply) };
      const grant = grantOf(reply);
      return requests.map((_, j) => grant(j));
    }
    const grants: DriverGranted[] = [];
    const done: number[] = [];
    for (const slot of this.#slots(records)) {
      const reply = await calls.run("acquire", script, slotRecords(records, slot), args).catch(async (error: unknown) => {
        await this.#giveBack(requests, done);
        throw error;
      });
      if (typeof reply === "number") {
        await this.#giveBack(requests, done);
        return { acquired: false, retryAfterMs: retryAfterMs(reply) };
      }
      const grant = grantOf(reply);
      slot.forEach((index, j) => {
        grants[index] = grant(j);
        done.push(index);
      });
    }
    return grants;
  }

  /** Index groups of the keys' `records` on a Cluster, one per slot, in the order of each slot's first key. */
  #slots(records: readonly string[]): number[][] {
    return slotBatches(records, true, Math.max(1, records.length));
  }

  /** Releases the keys at `indexes` that an earlier slot's script took or moved, before a later slot refused or failed. */
  async #giveBack(requests: readonly DriverAcquireRequest[], indexes: readonly number[]): Promise<void> {
    const [first] = requests;
    if (indexes.length === 0 || first === undefined) return;
    await this.releaseAll(
      indexes.map((i) => (requests[i] as DriverAcquireRequest).key),
      first.ownerSecret,
    ).catch(() => undefined);
  }
}

/** One key's entry of the acquire-all reply as a grant. */
function keyGrant(entry: string | [string, number, number], ttlMs: number): DriverGranted {
  if (typeof entry === "string") return { acquired: true, fencingToken: BigInt(entry), holdCount: 1, ttlMs };
  const [token, holdCount, left] = entry;
  return { acquired: true, fencingToken: BigInt(token), holdCount: Number(holdCount), ttlMs: Number(left) };
}

/** The records of one slot's keys: all of them when the set is one slot. */
function slotRecords(records: readonly string[], slot: readonly number[]): readonly string[] {
  return slot.length === records.length ? records : slot.map((i) => records[i] as string);
}
