import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import { acquireTogether } from "../provider/acquire-together.js";
import type { Hold } from "../provider/hold.js";
import type { HoldRegistry, ReleaseOutcome } from "../provider/hold-registry.js";
import type { LockHandle } from "../provider/lock-handle.js";
import type { AcquireOptions, Lock } from "../types.js";

/** What a multi-key set's release needs to know of how the set was taken. */
export interface SetChain {
  /** The set's call waited for a key (others held or queued for it), or the set was passed to it. */
  readonly contended: boolean;
  /** Passes in a row that led to this holder (0: the server granted the set). */
  readonly passes: number;
}

/** A set released for real: by a failed call, or one that never waited. */
export const NO_CHAIN: SetChain = Object.freeze({ contended: false, passes: 0 });

/** A contended set released here and still held on the server under its last owner's secret, until the next turn. */
interface LingeringSet {
  readonly keys: readonly string[];
  readonly ownerSecret: string;
  readonly ttlMs: number;
  readonly passes: number;
  readonly giveBack: NodeJS.Immediate;
}

/** The freed outcome of one key, as a driver's release answers it. */
const FREED: ReleaseOutcome = Object.freeze({ held: true, holdCount: 0 });

/**
 * Set passes: a multi-key set that others wait for, released by this process, lingers until the next turn of the event
 * loop; a call of this process for the same keys and ttl meanwhile (typically the releasing worker coming back) gets it
 * with one `passAll` call instead of a release, a refused attempt, a wait and a second attempt. At most `maxPasses` in a
 * row: then, or when no call came, the set goes back to the server, whose lines hand it on. Only sets whose owner secret
 * core drew for the call take part, so no other acquire can bring it. See "Set passes" in the README.
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
    return this.#lingering.size > 0 && this.#lingering.get(signature(keys))?.ttlMs === ttlMs;
  }

  /**
   * The lingering set of the requests' keys passed to their owner: the locks and the passes in a row so far; null when
   * the server refused the pass (the set went back and the call takes the usual path). Call after `lingers`.
   */
  async pass(requests: readonly DriverAcquireRequest[], settings: AcquireOptions, closed: () => boolean): Promise<{ locks: Lock[]; chain: SetChain } | null> {
    const key = signature(requests.map(({ key }) => key));
    const set = this.#lingering.get(key) as LingeringSet;
    this.#lingering.delete(key);
    clearImmediate(set.giveBack);
    const passAll = (this.#driver.passAll as NonNullable<LockDriver["passAll"]>).bind(this.#driver);
    const locks = await acquireTogether(this.#driver, this.#holds, requests, settings, closed, () => passAll(requests, set.ownerSecret)).catch(
      async (error: unknown) => {
        await this.#giveBack(set);
        throw error;
      },
    );
    if (locks === null) {
      await this.#giveBack(set);
      return null;
    }
    return { locks, chain: { contended: true, passes: set.passes + 1 } };
  }

  /**
   * Releases a set's locks: a contended set within the bound lingers (its handles let go here, `release()` resolves with
   * no server call); any other goes to the server at once.
   */
  release(locks: readonly LockHandle[], chain: SetChain): Promise<PromiseSettledResult<void>[]> {
    if (!chain.contended || chain.passes >= this.#maxPasses || locks.length < 2) return this.#holds.releaseTogether(locks);
    return this.#holds.releaseTogether(locks, (holds) => this.#linger(holds, locks.length, chain.passes));
  }

  /** Gives every lingering set back to the server (the provider closes). */
  async close(): Promise<void> {
    const sets = [...this.#lingering.values()];
    this.#lingering.clear();
    for (const set of sets) clearImmediate(set.giveBack);
    await Promise.all(sets.map((set) => this.#giveBack(set)));
  }

  /** Keeps `holds` on the server for a pass, when all of them are live last levels; else releases them there. */
  #linger(holds: readonly Hold[], count: number, passes: number): Promise<ReleaseOutcome[]> {
    const [first] = holds as [Hold];
    const keys = holds.map(({ key }) => key);
    const key = signature(keys);
    const keep = holds.length === count && holds.every((hold) => hold.active && hold.openHandles === 1);
    if (!keep || this.#lingering.has(key)) {
      return (this.#driver.releaseAll as NonNullable<LockDriver["releaseAll"]>).call(this.#driver, keys, first.ownerSecret);
    }
    const set: LingeringSet = {
      keys,
      ownerSecret: first.ownerSecret,
      ttlMs: first.ttlMs,
      passes,
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
    await (this.#driver.releaseAll as NonNullable<LockDriver["releaseAll"]>).call(this.#driver, set.keys, set.ownerSecret).catch(() => undefined);
  }
}

/** One string per set of keys (already in the global order). */
function signature(keys: readonly string[]): string {
  return keys.join("\u0000");
}
