import { SweepTimer } from "./sweep-timer.js";

/** Something that must be told when its deadline (`monotonicNow()` ms) has passed. */
export interface Expiring {
  readonly deadline: number;
  /** How long it was given: it may be told up to `timeoutMs / 8` late. */
  readonly timeoutMs: number;
  expire(): void;
}

/**
 * Many deadlines on one timer (a `SweepTimer`): an entry removed in time costs a set insert and delete. An entry
 * expires at its deadline or within `timeoutMs / 8` after.
 */
export class Deadlines {
  readonly #pending = new Set<Expiring>();
  readonly #timer = new SweepTimer((now) => this.#sweep(now));

  add(entry: Expiring): void {
    this.#pending.add(entry);
    this.#timer.schedule(entry.deadline, entry.timeoutMs / 8);
  }

  /** Takes `entry` off; false when it had expired already (or was never added). */
  delete(entry: Expiring): boolean {
    return this.#pending.delete(entry);
  }

  has(entry: Expiring): boolean {
    return this.#pending.has(entry);
  }

  /** Expires the entries due by `now`; answers the earliest deadline left. */
  #sweep(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#pending) {
      if (entry.deadline <= now) {
        this.#pending.delete(entry);
        entry.expire();
      } else next = Math.min(next, entry.deadline);
    }
    return next;
  }
}
