import { abortableSleep, MAX_POLL_INTERVAL_MS, monotonicNow, type ReleaseWatch } from "@distlock/core";

/** The longest timer Node accepts: a node's pump waits this long per notification, so its own timeout practically never fires. */
const PUMP_TIMEOUT_MS = 2 ** 31 - 1;

/** One node's announcements that this waiter's turn came, and whether that node was closed (then its watch answers at once, forever). */
export interface NodeReleaseWatch {
  readonly watch: ReleaseWatch;
  readonly isClosed: () => boolean;
}

/** How a `QuorumReleaseWatch` decides to wake its waiter. */
export interface QuorumReleaseWatchConfig {
  /** How many nodes must announce the waiter's turn, after its latest attempt began, before it wakes. */
  readonly needed: number;
  /** True when some node could not be subscribed: sleeps are then capped so a release there is noticed by polling. */
  readonly incomplete: boolean;
  /** `performance.now()` when the waiter's latest attempt began: an announcement before it was already seen by that attempt. */
  readonly lastAttemptAt: () => number;
}

/**
 * One waiter's turn announcements of one key on every node, merged: the waiter wakes once a majority of nodes
 * announced (on release) that it is first in their queue since its last attempt began, so it retries when a majority
 * can actually grant it, not on the first node's notice while the others still hold the key.
 */
export class QuorumReleaseWatch implements ReleaseWatch {
  readonly #sources: readonly NodeReleaseWatch[];
  readonly #config: QuorumReleaseWatchConfig;
  /** Per node, when it last announced a release. */
  readonly #announcedAt: number[];
  readonly #closed = new AbortController();
  #wake: (() => void) | undefined;

  constructor(sources: readonly NodeReleaseWatch[], config: QuorumReleaseWatchConfig) {
    this.#sources = Object.freeze([...sources]);
    this.#config = Object.freeze({ ...config });
    this.#announcedAt = sources.map(() => Number.NEGATIVE_INFINITY);
    sources.forEach((source, index) => {
      void this.#pump(source, index);
    });
  }

  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.#closed.signal.aborted || this.#majorityAnnounced()) return Promise.resolve();
    const boundMs = this.#config.incomplete ? Math.min(timeoutMs, MAX_POLL_INTERVAL_MS) : timeoutMs;
    const woken = new AbortController();
    this.#wake = () => woken.abort();
    return abortableSleep(boundMs, AbortSignal.any([signal, woken.signal])).finally(() => {
      this.#wake = undefined;
    });
  }

  close(): void {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    this.#wake?.();
    for (const { watch } of this.#sources) watch.close();
  }

  /** Records every turn `source` announces until the watch or the node is closed. */
  async #pump(source: NodeReleaseWatch, index: number): Promise<void> {
    const closed = this.#closed.signal;
    for (;;) {
      await source.watch.next(PUMP_TIMEOUT_MS, closed);
      if (closed.aborted || source.isClosed()) return;
      this.#announcedAt[index] = monotonicNow();
      if (this.#majorityAnnounced()) this.#wake?.();
    }
  }

  #majorityAnnounced(): boolean {
    const since = this.#config.lastAttemptAt();
    let announced = 0;
    for (const at of this.#announcedAt) if (at >= since) announced += 1;
    return announced >= this.#config.needed;
  }
}
