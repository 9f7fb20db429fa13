import { Latch, type ReleaseWatch } from "@distlock/core/driver";

/** One waiter's view of a release channel: a release seen while nobody waited is kept until the next `next()`. */
export class ReleaseLatch implements ReleaseWatch {
  readonly #onClose: (latch: ReleaseLatch) => void;
  readonly #released = new Latch("spent-by-wait");
  #closed = false;

  constructor(onClose: (latch: ReleaseLatch) => void) {
    this.#onClose = onClose;
  }

  /** Records a release and wakes the pending `next()`, if any. */
  notify(): void {
    this.#released.open();
  }

  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#released.wait(timeoutMs, signal);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#released.open();
    this.#onClose(this);
  }
}
