import type { ReleaseWatch } from "@distlock/core/driver";

/** One waiter's view of a release channel: a release seen while nobody waited is kept until the next `next()`. */
export class ReleaseLatch implements ReleaseWatch {
  readonly #onClose: (latch: ReleaseLatch) => void;
  #released = false;
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(onClose: (latch: ReleaseLatch) => void) {
    this.#onClose = onClose;
  }

  /** Records a release and wakes the pending `next()`, if any. */
  notify(): void {
    this.#released = true;
    this.#wake?.();
  }

  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#wake = undefined;
        this.#released = false;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      if (this.#released || signal.aborted || this.#closed) return done();
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    this.#onClose(this);
  }
}
