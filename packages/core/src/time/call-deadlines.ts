import { Deadlines, type Expiring } from "./deadlines.js";
import { monotonicNow } from "./monotonic.js";

/**
 * What one kind of bounded call makes of its outcome. Made once per kind of call (not per call), so a call on the hot
 * path allocates no closures; `context` carries what differs from call to call.
 */
export interface CallOutcomes<T, R, C> {
  /** What the caller gets for the call's answer; a throw rejects. */
  value(value: T, context: C): R | PromiseLike<R>;
  /** What the caller gets for the call's failure. */
  error(error: unknown, context: C): unknown;
  /** What the caller gets when no answer came within `timeoutMs`. */
  timedOut(timeoutMs: number, context: C): unknown;
  /** Sees an answer that came after the call had timed out (e.g. to undo a late grant). */
  late?(value: T, context: C): void;
  /** A second call for a failure it can recover from (e.g. a script the server no longer has); undefined when there is none. */
  retry?(error: unknown, context: C): Promise<T> | undefined;
}

/** A call still waiting for its answer; expiring it rejects the caller's promise. */
class PendingCall implements Expiring {
  constructor(
    readonly deadline: number,
    readonly timeoutMs: number,
    readonly reject: (reason: unknown) => void,
    readonly outcomes: CallOutcomes<never, unknown, unknown>,
    readonly context: unknown,
  ) {}

  expire(): void {
    this.reject(this.outcomes.timedOut(this.timeoutMs, this.context));
  }
}

/** `bound`'s outcomes: the answer and the failure pass through. */
interface PassThrough<T> {
  readonly onTimeout: () => Error;
  readonly onLate: ((value: T) => void) | undefined;
}
const PASS_THROUGH: CallOutcomes<unknown, unknown, PassThrough<unknown>> = {
  value: (value) => value,
  error: (error) => error,
  timedOut: (_timeoutMs, context) => context.onTimeout(),
  late: (value, context) => context.onLate?.(value),
};

/** Bounds server calls by their deadlines, all on one timer (see `Deadlines`). */
export class CallDeadlines {
  readonly #pending = new Deadlines();

  /** `call`'s outcome, or a rejection with `onTimeout()` once `timeoutMs` have passed; `onLate` sees a result that came too late. */
  bound<T>(call: Promise<T>, timeoutMs: number, onTimeout: () => Error, onLate?: (value: T) => void): Promise<T> {
    return this.settle(call, timeoutMs, PASS_THROUGH as CallOutcomes<T, T, PassThrough<T>>, { onTimeout, onLate });
  }

  /** `call` bounded by `timeoutMs`, its answer, failure or timeout turned into the caller's by `outcomes`, in one promise. */
  settle<T, R, C>(call: Promise<T>, timeoutMs: number, outcomes: CallOutcomes<T, R, C>, context: C): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const deadline = monotonicNow() + timeoutMs;
      const entry = new PendingCall(deadline, timeoutMs, reject, outcomes as CallOutcomes<never, unknown, unknown>, context);
      this.#pending.add(entry);
      const answered = (value: T) => {
        // Gone from the set: the sweep expired it, and the caller already has its rejection.
        if (!this.#pending.delete(entry)) return outcomes.late?.(value, context);
        try {
          resolve(outcomes.value(value, context));
        } catch (error) {
          reject(error);
        }
      };
      const failed = (error: unknown) => {
        if (this.#pending.delete(entry)) reject(outcomes.error(error, context));
      };
      call.then(answered, (error: unknown) => {
        const again = this.#pending.has(entry) ? outcomes.retry?.(error, context) : undefined;
        if (again === undefined) failed(error);
        else again.then(answered, failed);
      });
    });
  }
}
