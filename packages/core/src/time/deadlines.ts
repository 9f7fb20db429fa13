import { monotonicNow } from "./monotonic.js";

/** Something that must be told when its deadline (`monotonicNow()` ms) has passed. */
export interface Expiring {
  readonly deadline: number;
  /** How long it was given: it may be told up to `timeoutMs / 8` late. */
  readonly timeoutMs: number;
  expire(): void;
}

/**
 * Many deadlines on one timer, instead of a timer each: on the Redis hot path a timer set and cleared around every
 * command cost more client CPU than the rest of the call's bookkeeping. The timer is armed for the earliest deadline
 * and moved only when an entry's deadline comes sooner than it, so an entry removed in time costs a set insert and
 * delete. An entry expires at its deadline or within `timeoutMs / 8` after.
 */
export class Deadlines {
  readonly #pending = new Set<Expiring>();
  #timer: NodeJS.Timeout | undefined;
  #sweepAt = Number.POSITIVE_INFINITY;

  add(entry: Expiring): void {
    this.#pending.add(entry);
    if (this.#sweepAt > entry.deadline + entry.timeoutMs / 8) this.#arm(entry.deadline);
  }

  /** Takes `entry` off; false when it had expired already (or was never added). */
  delete(entry: Expiring): boolean {
    return this.#pending.delete(entry);
  }

  has(entry: Expiring): boolean {
    return this.#pending.has(entry);
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#sweepAt = at;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, Math.ceil(at - monotonicNow())));
    this.#timer.unref();
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#sweepAt = Number.POSITIVE_INFINITY;
    const now = monotonicNow();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#pending) {
      if (entry.deadline <= now) {
        this.#pending.delete(entry);
        entry.expire();
      } else next = Math.min(next, entry.deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}
