/**
 * One caller's wait, ended by the first `abort(reason)` (their signal, the provider's close, the time budget).
 * Lighter than an AbortController per call: the first attempt only registers callbacks, and an
 * AbortSignal is made only when a wait needs one.
 */
export class WaitScope {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  readonly #listeners = new Set<(reason: unknown) => void>();

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    for (const listener of [...this.#listeners]) listener(reason);
    this.#listeners.clear();
  }

  /** Calls `listener` once when the scope aborts (not if it already has); returns the unsubscribe. */
  onAbort(listener: (reason: unknown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
