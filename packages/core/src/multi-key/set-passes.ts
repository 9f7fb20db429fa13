import type { DriverAcquireRequest, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { acquireTogether } from "../provider/acquire-together.js";
import type { Hold } from "../provider/hold.js";
import type { HoldRegistry } from "../provider/hold-registry.js";
import type { LockHandle } from "../provider/lock-handle.js";
import { FREED, type ReleaseOutcome } from "../provider/release-outcome.js";
import { monotonicNow } from "../time/monotonic.js";
import type { AcquireOptions, Lock } from "../types.js";

/** What a multi-key set's release needs to know of how the set was taken. */
export interface SetChain {
  /** The set's call waited for a key (others held or queued for it), or the set was passed to it. */
  readonly contended: boolean;
  /** Passes in a row that led to this holder (0: the server granted the set). */
  readonly passes: number;
  /** Per key, in order, the last token reserved for passes with no driver call (see `DriverGranted.reservedTokens`). */
  readonly reservedThrough?: readonly bigint[];
}

/** A set released for real: by a failed call, or one that never waited. */
export const NO_CHAIN: SetChain = Object.freeze({ contended: false, passes: 0 });

/** A contended set released here and still held on the server under its last owner's secret, until the next turn. */
interface LingeringSet {
  readonly keys: readonly string[];
  /** The holds let go here, one per key in order: their owner, ttl, tokens and leases. */
  readonly holds: readonly Hold[];
  readonly chain: SetChain;
  readonly giveBack: NodeJS.Immediate;
}

/**
 * Set passes: a multi-key set that others wait for, released by this process, lingers until the next turn of the event
 * loop; a call of this process for the same keys and ttl meanwhile (typically the releasing worker coming back) gets it
 * with one `passAll` call, or none while the tokens an earlier pass reserved last, instead of a release, a refused
 * attempt, a wait and a second attempt. At most `maxPasses` in a row: then, or when no call came, the set goes back to
 * the server, whose lines hand it on. Only sets whose owner secret core drew for the call take part, so no other acquire
 * can bring it. See "Set passes" in the README.
 */
export class SetPasses {
  readonly #driver: LockDriver;
  readonly #holds: HoldRegistry;
  readonly #maxPasses: number;
  readonly #lingering = new Map<string, LingeringSet>();

  constructor(driver: LockDriver, holds: HoldRegistry, maxPasses: number) {
    this.#driver = driver;
    this.#holds = holds;
    this.#maxPasses = maxPasses;
  }

  /** Whether a set of `keys` (in the global order) asking `ttlMs` lingers here to be passed. */
  lingers(keys: readonly string[], ttlMs: number): boolean {
    return this.#lingering.get(signature(keys))?.holds[0]?.ttlMs === ttlMs;
  }

  /** Whether any set lingers here: when none does, a call need not ask about its own. */
  get anyLingers(): boolean {
    return this.#lingering.size > 0;
  }

  /**
   * The lingering set of the requests' keys passed to this call: with no driver call while every key has a reserved
   * token left and time left on its lease (under the set's owner secret, which the requests' gives way to), else with
   * `passAll` under the requests' owner. The locks and the chain so far; null when the server refused the pass (the set
   * went back and the call takes the usual path). Call after `lingers`.
   */
  async pass(requests: readonly DriverAcquireRequest[], settings: AcquireOptions, closed: () => boolean): Promise<{ locks: Lock[]; chain: SetChain } | null> {
    const key = signature(requests.map(({ key }) => key));
    const set = this.#lingering.get(key) as LingeringSet;
    this.#lingering.delete(key);
    clearImmediate(set.giveBack);
    const passes = set.chain.passes + 1;
    const reservedThrough = set.chain.reservedThrough;
    if (reservedThrough !== undefined && passesLocally(set.holds, reservedThrough)) {
      const autoRenew = settings.autoRenew !== false;
      const locks = set.holds.map((hold, i) => {
        const request = { ...(requests[i] as DriverAcquireRequest), ownerSecret: hold.ownerSecret };
        return this.#holds.passOn(hold, request, (hold.fencingToken as bigint) + 1n, autoRenew);
      });
      return { locks, chain: { contended: true, passes, reservedThrough } };
    }
    let reserved: bigint[] | undefined;
    const passAll = async () => {
      const result = await (this.#driver.passAll as NonNullable<LockDriver["passAll"]>).call(this.#driver, requests, ownerOf(set));
      if (Array.isArray(result)) reserved = reservedThroughOf(result);
      return result;
    };
    const giveBackAndThrow = async (error: unknown) => {
      await this.#giveBack(set);
      throw error;
    };
    const locks = await acquireTogether(this.#driver, this.#holds, requests, settings, closed, passAll).catch(giveBackAndThrow);
    if (locks === null) {
      await this.#giveBack(set);
      return null;
    }
    return { locks, chain: reserved === undefined ? { contended: true, passes } : { contended: true, passes, reservedThrough: reserved } };
  }

  /**
   * Releases a set's locks: a contended set within the bound lingers (its handles let go here, `release()` resolves with
   * no server call); any other goes to the server at once.
   */
  release(locks: readonly LockHandle[], chain: SetChain): Promise<PromiseSettledResult<void>[]> {
    if (!chain.contended || chain.passes >= this.#maxPasses || locks.length < 2) return this.#holds.releaseTogether(locks);
    return this.#holds.releaseTogether(locks, (holds) => this.#linger(holds, locks.length, chain));
  }

  /** Forgets the lingering sets that hold `key` (it was force-released): no pass may hand out its tokens any more. */
  drop(key: string): void {
    for (const [signatureOfSet, set] of this.#lingering) {
      if (!set.keys.includes(key)) continue;
      this.#lingering.delete(signatureOfSet);
      clearImmediate(set.giveBack);
      void this.#giveBack(set);
    }
  }

  /** Gives every lingering set back to the server (the provider closes). */
  async close(): Promise<void> {
    const sets = [...this.#lingering.values()];
    this.#lingering.clear();
    for (const set of sets) clearImmediate(set.giveBack);
    await Promise.all(sets.map((set) => this.#giveBack(set)));
  }

  /** Keeps `holds` on the server for a pass, when all of them are live last levels; else releases them there. */
  #linger(holds: readonly Hold[], count: number, chain: SetChain): Promise<ReleaseOutcome[]> {
    const [first] = holds as [Hold];
    const keys = holds.map(({ key }) => key);
    const key = signature(keys);
    const keep = holds.length === count && holds.every((hold) => hold.active && hold.openHandles === 1);
    if (!keep || this.#lingering.has(key)) return this.#releaseOnServer(keys, first.ownerSecret);
    const set: LingeringSet = {
      keys,
      holds,
      chain,
      giveBack: setImmediate(() => {
        if (this.#lingering.get(key) !== set) return;
        this.#lingering.delete(key);
        void this.#giveBack(set);
      }),
    };
    this.#lingering.set(key, set);
    return Promise.resolve(keys.map(() => FREED));
  }

  /** Releases a lingering set on the server; a failure leaves its leases to run out. */
  async #giveBack(set: LingeringSet): Promise<void> {
    await this.#releaseOnServer(set.keys, ownerOf(set)).catch(() => undefined);
  }

  #releaseOnServer(keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
    return (this.#driver.releaseAll as NonNullable<LockDriver["releaseAll"]>).call(this.#driver, keys, ownerSecret);
  }
}

/** The owner secret a lingering set is held under on the server. */
function ownerOf(set: LingeringSet): string {
  return (set.holds[0] as Hold).ownerSecret;
}

/** Whether every hold of a lingering set has a reserved token left and time left on its lease. */
function passesLocally(holds: readonly Hold[], reservedThrough: readonly bigint[]): boolean {
  const now = monotonicNow();
  return holds.every((hold, i) => (hold.fencingToken as bigint) < (reservedThrough[i] as bigint) && hold.validUntil > now);
}

/** Per grant, the last token it reserved; undefined unless every grant reserved some. */
function reservedThroughOf(grants: readonly DriverGranted[]): bigint[] | undefined {
  if (!grants.every((granted) => (granted.reservedTokens ?? 0) > 0 && granted.fencingToken !== null)) return undefined;
  return grants.map((granted) => (granted.fencingToken as bigint) + BigInt(granted.reservedTokens as number));
}

/** One string per set of keys (already in the global order). */
function signature(keys: readonly string[]): string {
  return keys.join("\u0000");
}
