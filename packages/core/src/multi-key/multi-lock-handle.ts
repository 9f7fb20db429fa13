import type { Lock, MultiLock } from "../types.js";

/** The locks of one multi-key acquire, held and let go together. */
export class MultiLockHandle implements MultiLock {
  readonly locks: readonly Lock[];
  readonly holder: string;
  readonly #releaseLocks: (locks: readonly Lock[]) => Promise<PromiseSettledResult<void>[]>;
  #keys: readonly string[] | undefined;
  #fencingTokens: ReadonlyMap<string, bigint | null> | undefined;
  #signal: AbortSignal | undefined;
  #release: Promise<void> | undefined;

  /** `locks` in the order they were taken, at least one (the handle keeps the array); `releaseLocks` releases them together. */
  constructor(locks: Lock[], releaseLocks: (locks: readonly Lock[]) => Promise<PromiseSettledResult<void>[]>) {
    this.#releaseLocks = releaseLocks;
    this.locks = Object.freeze(locks);
    this.holder = locks[0]?.holder ?? "";
  }

  /** Made on first read, as `fencingTokens` is: a short critical section that only releases never builds either. */
  get keys(): readonly string[] {
    this.#keys ??= Object.freeze(this.locks.map((lock) => lock.key));
    return this.#keys;
  }

  get fencingTokens(): ReadonlyMap<string, bigint | null> {
    this.#fencingTokens ??= new Map(this.locks.map((lock) => [lock.key, lock.fencingToken]));
    return this.#fencingTokens;
  }

  /**
   * Made on first read: most callers of a short critical section never look at it. Every read reads each lock's signal,
   * which checks that lock's deadline first: so the set's signal is aborted once any deadline passed, even when no
   * deadline timer has run yet (right after a process pause).
   */
  get signal(): AbortSignal {
    const signals = this.locks.map((lock) => lock.signal);
    this.#signal ??= signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals);
    return this.#signal;
  }

  get validUntil(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const lock of this.locks) earliest = Math.min(earliest, lock.validUntil);
    return earliest;
  }

  remainingMs(): number {
    let least = Number.POSITIVE_INFINITY;
    for (const lock of this.locks) least = Math.min(least, lock.remainingMs());
    return least;
  }

  async renew(ttlMs?: number): Promise<void> {
    throwFirstFailure(await Promise.allSettled(this.locks.map((lock) => lock.renew(ttlMs))));
  }

  release(): Promise<void> {
    this.#release ??= this.#releaseAll();
    return this.#release;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** Every lock is released (all at once); on a failure the next `release()` tries again those not yet released. */
  async #releaseAll(): Promise<void> {
    const outcomes = await this.#releaseLocks(this.locks);
    try {
      throwFirstFailure(outcomes);
    } catch (error) {
      this.#release = undefined;
      throw error;
    }
  }
}

/** Throws the first rejection's reason, in lock order. */
function throwFirstFailure(outcomes: readonly PromiseSettledResult<unknown>[]): void {
  for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
}
