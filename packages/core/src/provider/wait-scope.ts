import type { DriverWait } from "../driver/driver-attempt.js";
import { LockTimeoutError } from "../errors/lock-timeout-error.js";
import { monotonicNow } from "../time/monotonic.js";

/**
 * One caller's wait, ended by the first `abort(reason)` (their signal, the provider's close, the time budget).
 * Lighter than an AbortController per call: the first attempt only registers callbacks, and an
 * AbortSignal is made only when a wait needs one.
 */
export class WaitScope implements DriverWait {
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

/** One caller's wait: its scope, and what ends it once the call settled. */
export interface OpenWait {
  readonly scope: WaitScope;
  dispose(): void;
}

/**
 * A scope for one caller's wait, kept in `waits` (which `close()` aborts) until disposed: ended by the caller's `signal`,
 * or after `timeoutMs` by a `LockTimeoutError` for `key`.
 */
export function openWait(waits: Set<WaitScope>, key: string, signal: AbortSignal | undefined, timeoutMs: number | undefined): OpenWait {
  const startedAt = monotonicNow();
  const scope = new WaitScope();
  const onCallerAbort = () => scope.abort(signal?.reason);
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  waits.add(scope);
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => scope.abort(new LockTimeoutError(key, monotonicNow() - startedAt)), timeoutMs);
  return {
    scope,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCallerAbort);
      waits.delete(scope);
    },
  };
}
