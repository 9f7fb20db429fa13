import { abortableSleep, MAX_POLL_INTERVAL_MS, monotonicNow, type ReleaseWatch } from "@distlock/core";

/** The longest timer Node accepts: a node's pump waits this long per notification, so its own timeout practically never fires. */
const PUMP_TIMEOUT_MS = 2 ** 31 - 1;

/** One node's release notifications, and whether that node was closed (then its watch answers at once, forever). */
export interface NodeReleaseWatch {
  readonly watch: ReleaseWatch;
  readonly isClosed: () => boolean;
}

/** How a `QuorumReleaseWatch` decides to wake its waiter. */
export interface QuorumReleaseWatchConfig {
  /** How many nodes must announce a release, after the latest attempt began, before the waiter wakes. */
  readonly needed: number;
  /** True when some node could not be subscribed: sleeps are then capped so a release there is noticed by polling. */
  readonly incomplete: boolean;
  /** `performance.now()` when the latest attempt on the key began: a release announced before it was already seen by that attempt. */
  readonly lastAttemptAt: () => number;
  /** Consumes the driver's note that the last attempt split the vote: then sleep the (jittered) timeout instead of waking on notifications. */
  readonly takeSplitVote: () => boolean;
  /** Called once, on close. */
  readonly onClose: () => void;
}

/**
 * Release notifications of one key on every node, merged: the waiter wakes once a majority of nodes announced
 * a release since its last attempt began, so it retries when a majority can actually be free, not on the first
 * node's notice while the others still hold the key.
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
    if (this.#config.takeSplitVote()) return abortableSleep(timeoutMs, signal);
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
    this.#config.onClose();
  }

  /** Records every release `source` announces until the watch or the node is closed. */
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
