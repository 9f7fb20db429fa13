/** A call waiting for its answer: what ends it when its time runs out or its session is lost. */
export interface PendingCall {
  /** `performance.now()` by which it must be answered. */
  readonly due: number;
  /** No answer came by `due`. */
  timedOut(): void;
  /** The session was lost (`reason`) before an answer came. */
  lost(reason: unknown): void;
}

/**
 * The calls of one session that wait for an answer, bounded by one timer rather than one per call. Every call gets the
 * same time, so the calls are due in the order they were added: the timer waits for the oldest only.
 */
export class PendingCalls {
  readonly #calls = new Set<PendingCall>();
  #timer: NodeJS.Timeout | undefined;

  add(call: PendingCall): void {
    this.#calls.add(call);
    this.#timer ??= this.#arm(call.due);
  }

  /** The call was answered (or gave up): no timeout for it. */
  delete(call: PendingCall): void {
    this.#calls.delete(call);
  }

  /** Ends every call with the session's loss; none is added after it. */
  loseAll(reason: unknown): void {
    clearTimeout(this.#timer);
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const call of calls) call.lost(reason);
  }

  #arm(due: number): NodeJS.Timeout {
    return setTimeout(() => this.#expire(), Math.max(0, due - performance.now()));
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const call of this.#calls) {
      if (call.due > now) {
        this.#timer = this.#arm(call.due);
        return;
      }
      this.#calls.delete(call);
      call.timedOut();
    }
  }
}
