/** A call waiting for its answer: what ends it when its time runs out or its session is lost. */
export interface PendingCall {
  /** `performance.now()` by which it must be answered. */
  readonly due: number;
  /** Set by `PendingCalls.delete`: it needs no timeout any more. */
  answered: boolean;
  /** No answer came by `due`. */
  timedOut(): void;
  /** The session was lost (`reason`) before an answer came. */
  lost(reason: unknown): void;
}

/**
 * The calls of one session that wait for an answer, bounded by one timer rather than one per call. Every call gets the
 * same time, so the calls are due in the order they were added, and ZooKeeper answers a session's requests in that
 * order too: the calls are kept in a queue, answered ones dropped from its head, and the timer waits for the oldest.
 */
export class PendingCalls {
  readonly #calls: PendingCall[] = [];
  #timer: NodeJS.Timeout | undefined;

  add(call: PendingCall): void {
    this.#dropAnswered();
    this.#calls.push(call);
    this.#timer ??= this.#arm(call.due);
  }

  /** The call was answered (or gave up): no timeout for it. */
  delete(call: PendingCall): void {
    call.answered = true;
  }

  /** Ends every call not answered yet with the session's loss; none is added after it. */
  loseAll(reason: unknown): void {
    clearTimeout(this.#timer);
    const calls = this.#calls.splice(0);
    for (const call of calls) if (!call.answered) call.lost(reason);
  }

  #dropAnswered(): void {
    const calls = this.#calls;
    while (calls.length > 0 && (calls[0] as PendingCall).answered) calls.shift();
  }

  #arm(due: number): NodeJS.Timeout {
    return setTimeout(() => this.#expire(), Math.max(0, due - performance.now()));
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const calls = this.#calls;
    while (calls.length > 0) {
      const call = calls[0] as PendingCall;
      if (!call.answered && call.due > now) {
        this.#timer = this.#arm(call.due);
        return;
      }
      calls.shift();
      if (!call.answered) call.timedOut();
    }
  }
}
