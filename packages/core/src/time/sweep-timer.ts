import { monotonicNow } from "./monotonic.js";

/**
 * One unref'd timer for many deadlines, instead of a timer each: on the Redis hot path a timer set and cleared around
 * every command cost more client CPU than the rest of the call's bookkeeping. It is armed for the earliest deadline and
 * moved only when a new one comes sooner than the current one allows, so a deadline met in time costs a comparison.
 */
export class SweepTimer {
  readonly #sweep: (now: number) => number;
  #timer: NodeJS.Timeout | undefined;
  #sweepAt = Number.POSITIVE_INFINITY;

  /** `sweep(now)` expires what is due and answers the earliest deadline still waiting (Infinity when none is). */
  constructor(sweep: (now: number) => number) {
    this.#sweep = sweep;
  }

  /** A deadline at `at` (`monotonicNow()` ms) that may be swept up to `slackMs` after it. */
  schedule(at: number, slackMs: number): void {
    if (this.#sweepAt > at + slackMs) this.#arm(at);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sweepAt = Number.POSITIVE_INFINITY;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#sweepAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, Math.ceil(at - monotonicNow())));
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#sweepAt = Number.POSITIVE_INFINITY;
    const next = this.#sweep(monotonicNow());
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}
