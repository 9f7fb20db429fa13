import { LockError, LockErrorCode } from "@distlock/core";
import { Latch } from "@distlock/core/internal";

/**
 * A driver's waits in progress, and its closing. A provider's `close()` aborts its waits, then releases what it holds,
 * then closes the driver; a wait cut off that way cleans up (leaves its line, gives back a grant that raced the abort)
 * once the driver's `close()` has started, which resolves when every wait has settled. So the waits reject while
 * `close()` is finishing, after the releases, and nothing of theirs is left queued when it resolves.
 */
export class InFlight {
  readonly #running = new Set<Promise<unknown>>();
  readonly #closing = new Latch();
  readonly #boundMs: number;

  /** `boundMs`: the longest a wait's cleanup waits for `close()` to start, and `close()` for the waits. */
  constructor(boundMs: number) {
    this.#boundMs = boundMs;
  }

  /** Returns `wait`, remembered until it settles. */
  track<T>(wait: Promise<T>): Promise<T> {
    this.#running.add(wait);
    const forget = () => this.#running.delete(wait);
    wait.then(forget, forget);
    return wait;
  }

  /** Resolves when a wait that ended through `signal` may clean up: at once, unless the provider's close aborted it. */
  cleanupTurn(signal: AbortSignal): Promise<void> {
    if (!LockError.is(signal.reason, LockErrorCode.ProviderClosed)) return Promise.resolve();
    return this.#closing.wait(this.#boundMs);
  }

  /** Lets the waits cut off by close clean up; resolves once every tracked wait has settled (or after the bound). */
  async close(): Promise<void> {
    this.#closing.open();
    if (this.#running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#boundMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.#running]), bound]);
    clearTimeout(timer);
  }
}
