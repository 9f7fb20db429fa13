/**
 * What happens to an opening once a wait has seen it. "stays-open": the latch stays open, every later wait returns at
 * once. "spent-by-wait": it closes again, so one opening wakes the waits pending then or, with none pending, the next wait.
 */
export type LatchMode = "stays-open" | "spent-by-wait";

/**
 * Wakes its waits when opened; each wait is bounded by a timeout and an AbortSignal and never rejects. However a wait
 * ends, its timer is cleared and its abort listener removed; the timer is unref'd, so a wait never keeps the process alive.
 */
export class Latch {
  readonly #mode: LatchMode;
  readonly #pending = new Set<() => void>();
  #open = false;

  constructor(mode: LatchMode = "stays-open") {
    this.#mode = mode;
  }

  /** Whether a wait would return at once. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** Wakes the pending waits; the opening is kept for later waits unless the latch is spent by the ones it woke. */
  open(): void {
    this.#open = this.#mode === "stays-open" || this.#pending.size === 0;
    for (const settle of this.#pending) settle();
  }

  /** Resolves once the latch is open (at once if it is), after `timeoutMs`, or when `signal` aborts, whichever is first. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#open) {
      if (this.#mode === "spent-by-wait") this.#open = false;
      return Promise.resolve();
    }
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const settle = () => {
        this.#pending.delete(settle);
        clearTimeout(timer);
        signal?.removeEventListener("abort", settle);
        resolve();
      };
      this.#pending.add(settle);
      const timer = setTimeout(settle, Math.max(0, timeoutMs));
      timer.unref();
      signal?.addEventListener("abort", settle, { once: true });
    });
  }
}
