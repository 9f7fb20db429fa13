import { abortableSleep, MAX_POLL_INTERVAL_MS, type ReleaseWatch } from "@distlock/core";

/** How an `AnyReleaseWatch` behaves beyond the nodes' notifications. */
export interface AnyReleaseWatchConfig {
  /** True when some node could not be subscribed: sleeps are then capped so a release there is noticed by polling. */
  readonly incomplete: boolean;
  /** Consumes the driver's note that the last attempt split the vote: then sleep the (jittered) timeout instead of waking on notifications. */
  readonly takeSplitVote: () => boolean;
}

/** Release notifications of one key on every node, merged: a release seen on any node wakes the waiter. */
export class AnyReleaseWatch implements ReleaseWatch {
  readonly #watches: readonly ReleaseWatch[];
  readonly #config: AnyReleaseWatchConfig;

  constructor(watches: readonly ReleaseWatch[], config: AnyReleaseWatchConfig) {
    this.#watches = Object.freeze([...watches]);
    this.#config = Object.freeze({ ...config });
  }

  async next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#config.takeSplitVote()) return abortableSleep(timeoutMs, signal);
    const boundMs = this.#config.incomplete ? Math.min(timeoutMs, MAX_POLL_INTERVAL_MS) : timeoutMs;
    if (this.#watches.length === 0) return abortableSleep(boundMs, signal);
    const first = new AbortController();
    const stop = () => first.abort();
    signal.addEventListener("abort", stop, { once: true });
    try {
      await Promise.race(this.#watches.map((watch) => watch.next(boundMs, first.signal)));
    } finally {
      signal.removeEventListener("abort", stop);
      first.abort();
    }
  }

  close(): void {
    for (const watch of this.#watches) watch.close();
  }
}
