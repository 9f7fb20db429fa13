import { DEFAULT_TTL_MS } from "../options/defaults.js";
import { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
import { abortableSleep } from "../time/abortable-sleep.js";
import type { Lock, LockProvider, LockState } from "../types.js";

/** What a leader's work is told about its term. */
export interface Leadership {
  /** The term's fencing token: hand it to whatever the leader writes to, so a deposed leader's writes are refused. */
  readonly fencingToken: bigint | null;
  /** This node's public holder label. */
  readonly holder: string;
}

/** Options of `elect`. */
export interface ElectionOptions {
  /** The leader's work; `signal` aborts when the term ends (lost, resigned or stopped). Throwing resigns. */
  onElected: (signal: AbortSignal, leadership: Leadership) => void | Promise<void>;
  /** Leadership lease, renewed while this node is alive. @default 30_000 */
  ttlMs?: number;
  /** Pause before campaigning again after a resignation or an error. @default 1_000 */
  retryDelayMs?: number;
  /** Ends the campaign for good, like `stop()`. */
  signal?: AbortSignal;
  /** Told of errors the campaign survives (backend outages, a throwing `onElected`). */
  onError?: (error: unknown) => void;
}

/** Default pause before campaigning again. */
export const DEFAULT_ELECTION_RETRY_DELAY_MS = 1_000;

/** One node's campaign for leadership of `name`; see `elect`. */
export class Election {
  readonly name: string;
  readonly #provider: LockProvider;
  readonly #options: Readonly<ElectionOptions>;
  readonly #stop = new AbortController();
  readonly #campaign: Promise<void>;
  #term: AbortController | undefined;
  #lock: Lock | undefined;

  constructor(provider: LockProvider, name: string, options: ElectionOptions) {
    validateKey(name);
    validateAcquireOptions({ ttlMs: options.ttlMs, waitMs: options.retryDelayMs });
    this.name = name;
    this.#provider = provider;
    this.#options = Object.freeze({ ...options });
    options.signal?.addEventListener("abort", () => void this.stop(), { once: true });
    this.#campaign = this.#run();
  }

  /** True while this node holds leadership. */
  get isLeader(): boolean {
    return this.#lock !== undefined && !this.#lock.signal.aborted;
  }

  /** The current leader as the backend sees it (holder label, fencing token), or null. */
  leader(): Promise<LockState | null> {
    return this.#provider.inspect(this.name);
  }

  /** Steps down if leading (the work's signal aborts), then campaigns again after `retryDelayMs`. */
  async resign(): Promise<void> {
    this.#term?.abort(new DOMException("leadership resigned", "AbortError"));
  }

  /** Steps down and stops campaigning; resolves when the lock is released. */
  async stop(): Promise<void> {
    this.#stop.abort(new DOMException("election stopped", "AbortError"));
    this.#term?.abort(this.#stop.signal.reason);
    await this.#campaign;
  }

  async #run(): Promise<void> {
    const retryDelayMs = this.#options.retryDelayMs ?? DEFAULT_ELECTION_RETRY_DELAY_MS;
    while (!this.#stop.signal.aborted) {
      try {
        const lock = await this.#provider.acquire(this.name, { ttlMs: this.#options.ttlMs ?? DEFAULT_TTL_MS, signal: this.#stop.signal });
        const resigned = await this.#serve(lock);
        if (resigned) await abortableSleep(retryDelayMs, this.#stop.signal);
      } catch (error) {
        if (this.#stop.signal.aborted) break;
        this.#options.onError?.(error);
        await abortableSleep(retryDelayMs, this.#stop.signal);
      }
    }
  }

  /** Runs one term; true when it ended by resignation rather than loss. */
  async #serve(lock: Lock): Promise<boolean> {
    const term = new AbortController();
    const onLost = () => term.abort(lock.signal.reason);
    lock.signal.addEventListener("abort", onLost, { once: true });
    this.#term = term;
    this.#lock = lock;
    try {
      await this.#options.onElected(term.signal, { fencingToken: lock.fencingToken, holder: lock.holder });
    } catch (error) {
      this.#options.onError?.(error);
      term.abort(error);
    }
    if (!term.signal.aborted) await new Promise((resolve) => term.signal.addEventListener("abort", resolve, { once: true }));
    lock.signal.removeEventListener("abort", onLost);
    this.#lock = undefined;
    this.#term = undefined;
    if (lock.signal.aborted) return false;
    await lock.release().catch((error: unknown) => this.#options.onError?.(error));
    return true;
  }
}

/**
 * Campaigns for leadership of `name` until stopped: exactly one node at a time runs `onElected`,
 * renewing while alive; when the leader dies another takes over within the lease.
 */
export function elect(provider: LockProvider, name: string, options: ElectionOptions): Election {
  return new Election(provider, name, options);
}
