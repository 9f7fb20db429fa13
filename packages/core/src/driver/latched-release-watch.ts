import type { ReleaseWatch } from "./lock-driver.js";

/**
 * A `ReleaseWatch` for one waiter of one key, for a backend whose store notifies it of changes: call `notify()` on each
 * (or when one may have gone unheard, e.g. after a reconnect). A notification that comes while nobody waits is kept
 * (latched) for the next `next()`, so a release between a refused attempt and the wait is never missed. `unsubscribe`
 * runs once, at `close()`.
 */
export class LatchedReleaseWatch implements ReleaseWatch {
  readonly #unsubscribe: () => void;
  #heard = false;
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(unsubscribe: () => void) {
    this.#unsubscribe = unsubscribe;
  }

  /** The key was written or deleted, or a notification may have gone unheard: the waiter tries again. */
  notify(): void {
    if (this.#wake === undefined) this.#heard = true;
    else this.#wake();
  }

  /** Resolves at once if notified since the last call, else on the next `notify()`, after `timeoutMs`, on abort or on `close()`. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#heard || this.#closed || signal.aborted) {
      this.#heard = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        this.#wake = undefined;
        clearTimeout(timer);
        signal.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      signal.addEventListener("abort", wake, { once: true });
      this.#wake = wake;
    });
  }

  /** Wakes a waiting `next()` and unsubscribes, once; later calls do nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    this.#unsubscribe();
  }
}
