import { monotonicNow } from "./monotonic.js";

interface PendingCall {
  readonly deadline: number;
  readonly expire: () => void;
}

/**
 * Bounds server calls by their deadlines with one timer for all of them, instead of a timer per call: on the Redis
 * hot path a timer set and cleared around every command cost more client CPU than the rest of the call's bookkeeping.
 * The timer is armed for the earliest deadline and moved only when a call's deadline comes sooner than it, so calls
 * that answer in time cost a set insert and delete. A call rejects at its deadline or within `timeoutMs / 8` after.
 */
export class CallDeadlines {
  readonly #pending = new Set<PendingCall>();
  #timer: NodeJS.Timeout | undefined;
  #sweepAt = Number.POSITIVE_INFINITY;

  /** `call`'s outcome, or a rejection with `onTimeout()` once `timeoutMs` have passed; `onLate` sees a result that came too late. */
  bound<T>(call: Promise<T>, timeoutMs: number, onTimeout: () => Error, onLate?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timedOut = false;
      const deadline = monotonicNow() + timeoutMs;
      const entry: PendingCall = {
        deadline,
        expire: () => {
          timedOut = true;
          reject(onTimeout());
        },
      };
      this.#pending.add(entry);
      if (this.#sweepAt > deadline + timeoutMs / 8) this.#arm(deadline);
      call.then(
        (value) => {
          this.#pending.delete(entry);
          if (timedOut) onLate?.(value);
          else resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(entry);
          if (!timedOut) reject(error);
        },
      );
    });
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
