import type { ReleaseWatch } from "@distlock/core/driver";
import { Latch, MAX_POLL_INTERVAL_MS, monotonicNow } from "@distlock/core/internal";

/** How a `QuorumReleaseWatch` decides to wake its waiter. */
export interface QuorumReleaseWatchConfig {
  /** The waiter's id, as the nodes name their first waiter when they announce a release. */
  readonly waiterId: string;
  /** How many nodes must announce a release, after the latest attempt began, before the waiter wakes. */
  readonly needed: number;
  /** `performance.now()` when the waiter's latest attempt began: an announcement before it was already seen by that attempt. */
  readonly lastAttemptAt: () => number;
}

/**
 * One waiter's view of the release announcements of one key on every node, each naming the node's first waiter. The
 * waiter wakes once a majority of nodes announced a release since its latest attempt began and at least one of them
 * named it (or lost news on a reconnect): with every node naming the same first waiter, only that one retries, and if
 * the nodes disagree (a waiter's place reached some nodes late) each named waiter tries rather than waiting for a refresh.
 */
export class QuorumReleaseWatch implements ReleaseWatch {
  readonly #config: QuorumReleaseWatchConfig;
  /** Per node name, when it last announced a release, and when it last named this waiter. */
  readonly #announcedAt = new Map<string, number>();
  readonly #namedAt = new Map<string, number>();
  #closed = false;
  #stops: Array<() => void> = [];
  /** Longest sleep: when some node could not be subscribed, a release there is found by attempting. */
  #sleepCapMs = Number.POSITIVE_INFINITY;
  #wake: (() => void) | undefined;

  constructor(config: QuorumReleaseWatchConfig) {
    this.#config = Object.freeze({ ...config });
  }

  /** Takes the unsubscribe functions of the nodes it hears; fewer than all nodes caps every sleep at the poll interval. */
  subscribed(stops: ReadonlyArray<() => void>, complete: boolean): void {
    this.#stops = [...stops];
    if (!complete) this.#sleepCapMs = MAX_POLL_INTERVAL_MS;
  }

  /** One message on `node`'s release channel (the first waiter's id, or "" when none); null after a reconnect. */
  hear(node: string, message: string | null): void {
    const now = monotonicNow();
    this.#announcedAt.set(node, now);
    if (message === null || message === this.#config.waiterId) this.#namedAt.set(node, now);
    if (this.#due()) this.#wake?.();
  }

  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.#closed || this.#due()) return Promise.resolve();
    const woken = new Latch();
    this.#wake = () => woken.open();
    return woken.wait(Math.min(timeoutMs, this.#sleepCapMs), signal).finally(() => {
      this.#wake = undefined;
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    for (const stop of this.#stops) stop();
  }

  #due(): boolean {
    const since = this.#config.lastAttemptAt();
    return countSince(this.#namedAt, since) > 0 && countSince(this.#announcedAt, since) >= this.#config.needed;
  }
}

function countSince(times: ReadonlyMap<string, number>, since: number): number {
  let count = 0;
  for (const at of times.values()) if (at >= since) count += 1;
  return count;
}
