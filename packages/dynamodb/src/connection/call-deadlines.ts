/**
 * A call's abort handle in the shape the SDK also takes (a flag, and an `onabort` the SDK sets to destroy its request):
 * a plain object, so a call costs no `AbortController`, no event listeners and no timer of its own.
 */
export interface CallSignal {
  aborted: boolean;
  // biome-ignore lint/complexity/noBannedTypes: the SDK's own type for the handler it sets
  onabort: Function | null;
}

/** A call in flight: when it is due, its handle, and how to fail it. */
interface PendingCall {
  readonly dueAt: number;
  readonly signal: CallSignal;
  readonly expire: (error: Error) => void;
}

/**
 * Bounds every call of one client to `timeoutMs` with one timer for all of them. Every call has the same bound, so the
 * calls in flight, in the order they started, are in the order of their deadlines: the timer is armed for the first
 * of them, and a call that settles only leaves the set (the timer, when it fires, finds it gone and arms itself for
 * the next one still in flight). A call past its deadline fails at once, even one the SDK cannot abort (e.g. waiting
 * for credentials), and its request is then aborted through `onabort`.
 */
export class CallDeadlines {
  readonly #timeoutMs: number;
  readonly #pending = new Set<PendingCall>();
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** `call`'s answer, or a rejection `timeoutMs` after it started if it has none by then. */
  run<T>(call: (signal: CallSignal, dueAt: number) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending: PendingCall = { dueAt: performance.now() + this.#timeoutMs, signal: { aborted: false, onabort: null }, expire: reject };
      this.#pending.add(pending);
      if (this.#timer === undefined) this.#arm(this.#timeoutMs);
      else if (this.#pending.size === 1) this.#timer.ref();
      call(pending.signal, pending.dueAt).then(
        (value) => {
          this.#settled(pending);
          resolve(value);
        },
        (error: unknown) => {
          this.#settled(pending);
          reject(error);
        },
      );
    });
  }

  /** Stops the timer unless a call is still in flight (which stays bounded). */
  close(): void {
    if (this.#pending.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #settled(pending: PendingCall): void {
    this.#pending.delete(pending);
    // An armed timer with nothing in flight must not keep the process alive.
    if (this.#pending.size === 0) this.#timer?.unref();
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => this.#expireDue(), delayMs);
  }

  #expireDue(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const pending of this.#pending) {
      if (pending.dueAt > now) {
        this.#arm(pending.dueAt - now);
        return;
      }
      this.#pending.delete(pending);
      pending.expire(new Error(`DynamoDB did not answer within ${this.#timeoutMs} ms`));
      pending.signal.aborted = true;
      pending.signal.onabort?.();
    }
  }
}
