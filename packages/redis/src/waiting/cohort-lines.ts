/** A grant that a release in this process passed straight to one of its waiters. */
export interface LocalPass {
  readonly fencingToken: bigint;
  readonly ttlMs: number;
  /** When the release that passed it was sent (the lease started after this), or with `keepsLease` when the lease it hands on started. */
  readonly grantedAt: number;
  /** The pass hands on a lease already running (a process cohort's server hold), rather than one the release started. */
  readonly keepsLease: boolean;
  /** How many waiters the server's queue held after the pass (0 when unknown). */
  readonly queued: number;
}

/** A waiter of this process that is in a key's line on the server. */
export interface LocalWaiter {
  readonly waiterId: string;
  readonly ownerSecret: string;
  readonly ttlMs: number;
  /** Whether core drew the owner secret for this acquire alone (`DriverAcquireRequest.freshOwner`). */
  readonly freshOwner: boolean;
  /**
   * Takes a grant passed to it; false when it has stopped waiting (after a pass on the server, its leaving gives the lock
   * back there; a pass that keeps the cohort's lease then goes to someone else).
   */
  take(pass: LocalPass): boolean;
}

/**
 * This process's waiters of each key that are in the server's line, in the order they joined it, and how many passes in
 * a row went over the heads of waiters of other processes (a process cohort, after Dice, Marathe and Shavit, "Lock
 * Cohorting"): a release may pass the lock to the next waiter here with no message, at most `maxJumps` times in a row
 * ahead of earlier waiters elsewhere; then it goes to the head of the line.
 */
export class CohortLines {
  readonly #maxJumps: number;
  readonly #lines = new Map<string, LocalWaiter[]>();
  readonly #jumps = new Map<string, number>();

  constructor(maxJumps: number) {
    this.#maxJumps = maxJumps;
  }

  /** Adds `waiter` to the key's line here; returns how it leaves it. */
  join(key: string, waiter: LocalWaiter): () => void {
    const line = this.#lines.get(key) ?? [];
    if (line.length === 0) this.#lines.set(key, line);
    line.push(waiter);
    return () => {
      const index = line.indexOf(waiter);
      if (index >= 0) line.splice(index, 1);
      if (line.length === 0 && this.#lines.get(key) === line) this.#lines.delete(key);
    };
  }

  /** The waiter a release of `key` by `ownerSecret` may pass to: the first here of another owner. */
  next(key: string, ownerSecret: string): LocalWaiter | undefined {
    const line = this.#lines.get(key);
    return line?.find((waiter) => waiter.ownerSecret !== ownerSecret);
  }

  /** Takes the first waiter here of `key` that `fits` out of the line (it is passed the key); undefined when none does. */
  takeFirst(key: string, fits: (waiter: LocalWaiter) => boolean): LocalWaiter | undefined {
    const line = this.#lines.get(key);
    const index = line === undefined ? -1 : line.findIndex(fits);
    if (line === undefined || index < 0) return undefined;
    const [waiter] = line.splice(index, 1);
    if (line.length === 0) this.#lines.delete(key);
    return waiter;
  }

  /** How many waiters of this process are in the server's line of `key`. */
  size(key: string): number {
    return this.#lines.get(key)?.length ?? 0;
  }

  /** Whether the next pass of `key` may still go ahead of waiters of other processes. */
  mayJump(key: string): boolean {
    return (this.#jumps.get(key) ?? 0) < this.#maxJumps;
  }

  /**
   * Counts a pass that jumped the line; a pass in turn, or the key going to the line or freed, starts the count again.
   * The count outlives the local line, which empties each time its only waiter is passed the key.
   */
  passed(key: string, jumped: boolean): void {
    if (jumped) this.#jumps.set(key, (this.#jumps.get(key) ?? 0) + 1);
    else if (this.#jumps.size > 0) this.#jumps.delete(key);
  }
}
