import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal } from "../driver/driver-attempt.js";
import { BackendUnavailableError } from "../errors/backend-unavailable-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { LockState } from "../types.js";
import { MemorySemaphoreStore } from "./memory-semaphore-store.js";
import { type LineWaiter, waitInLine } from "./wait-in-line.js";

/** Tokens a pass of a set reserves past its own, for passes with no driver call. */
const RESERVED_TOKENS = 64;

interface Entry {
  ownerSecret: string;
  holder: string;
  holdCount: number;
  fencingToken: bigint;
  expiresAt: number;
}

type Waiter = LineWaiter<DriverAcquireRequest>;

/**
 * The "server" of the in-memory backend: one per name per process, shared by every memory provider
 * that names it. Keeps the whole contract: TTL, reentrancy, never-reset fencing counters, FIFO hand-off.
 */
export class MemoryLockStore {
  readonly #entries = new Map<string, Entry>();
  readonly #counters = new Map<string, bigint>();
  readonly #queues = new Map<string, Waiter[]>();
  readonly #expiryTimers = new Map<string, NodeJS.Timeout>();
  readonly #releaseListeners = new Map<string, Set<() => void>>();
  #outage = false;
  /** The store's semaphores; they share its outage. */
  readonly semaphores = new MemorySemaphoreStore(() => this.#assertUp());

  /** Simulates an unreachable server: every call fails until `false` again; leases keep running out meanwhile. */
  setOutage(down: boolean): void {
    this.#outage = down;
  }

  tryAcquire(request: DriverAcquireRequest): DriverGranted | DriverRefused {
    this.#assertUp();
    const entry = this.#live(request.key);
    return this.#refusal(request, entry) ?? this.#take(request, entry);
  }

  /** Every request granted (taken or re-entered), or none and the first refusal. */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): DriverGranted[] | DriverRefused {
    this.#assertUp();
    for (const request of requests) {
      const refused = this.#refusal(request, this.#live(request.key));
      if (refused !== undefined) return refused;
    }
    return requests.map((request) => this.#take(request, this.#live(request.key)));
  }

  /**
   * Every request's key moved from `fromSecret` (its last level) to the request's owner, with the next token (and the
   * `RESERVED_TOKENS` after it reserved) and a fresh lease; or none and a refusal (see `LockDriver.passAll`).
   */
  passAll(requests: readonly DriverAcquireRequest[], fromSecret: string): DriverGranted[] | DriverRefused {
    this.#assertUp();
    for (const { key } of requests) {
      const entry = this.#live(key);
      if (entry === undefined || entry.ownerSecret !== fromSecret || entry.holdCount !== 1) return { acquired: false, retryAfterMs: 1 };
    }
    return requests.map((request) => {
      const granted = this.#take(request, undefined);
      this.#counters.set(request.key, (granted.fencingToken as bigint) + BigInt(RESERVED_TOKENS));
      return { ...granted, reservedTokens: RESERVED_TOKENS };
    });
  }

  /** Queues the request (FIFO) and resolves when granted; `signal` withdraws it. */
  acquire(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    this.#assertUp();
    const result = this.tryAcquire(request);
    if (result.acquired) return Promise.resolve(result);
    const queue = this.#queues.get(request.key) ?? [];
    this.#queues.set(request.key, queue);
    const granted = waitInLine(queue, request, signal, () => {
      if (queue.length === 0) this.#queues.delete(request.key);
    });
    this.#armExpiry(request.key);
    return granted;
  }

  renew(renewals: readonly DriverRenewal[]): boolean[] {
    this.#assertUp();
    return renewals.map(({ key, ownerSecret, ttlMs }) => {
      const entry = this.#live(key);
      if (entry === undefined || entry.ownerSecret !== ownerSecret) return false;
      entry.expiresAt = Math.max(entry.expiresAt, monotonicNow() + ttlMs);
      this.#armExpiry(key);
      return true;
    });
  }

  release(key: string, ownerSecret: string): { held: boolean; holdCount: number } {
    this.#assertUp();
    const entry = this.#live(key);
    if (entry === undefined || entry.ownerSecret !== ownerSecret) return { held: false, holdCount: 0 };
    entry.holdCount -= 1;
    if (entry.holdCount === 0) this.#free(key);
    return { held: true, holdCount: entry.holdCount };
  }

  inspect(key: string): LockState | null {
    this.#assertUp();
    const entry = this.#live(key);
    if (entry === undefined) return null;
    return {
      key,
      holder: entry.holder,
      holdCount: entry.holdCount,
      fencingToken: entry.fencingToken,
      ttlRemainingMs: Math.max(0, entry.expiresAt - monotonicNow()),
      waiters: this.#queues.get(key)?.length ?? 0,
    };
  }

  /** Every live hold whose key starts with `prefix`, unordered. */
  list(prefix: string): LockState[] {
    this.#assertUp();
    return [...this.#entries.keys()].filter((key) => key.startsWith(prefix)).flatMap((key) => this.inspect(key) ?? []);
  }

  forceRelease(key: string): boolean {
    this.#assertUp();
    if (this.#live(key) === undefined) return false;
    this.#free(key);
    return true;
  }

  /** Calls `listener` whenever `key` is freed (release, expiry, force); returns the unsubscribe function. */
  onRelease(key: string, listener: () => void): () => void {
    const listeners = this.#releaseListeners.get(key) ?? new Set();
    this.#releaseListeners.set(key, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#releaseListeners.delete(key);
    };
  }

  /** Why `request` cannot have its key now (held by another owner, or free with others waiting first); undefined if it can. */
  #refusal(request: DriverAcquireRequest, entry: Entry | undefined): DriverRefused | undefined {
    if (entry !== undefined && entry.ownerSecret !== request.ownerSecret) return { acquired: false, retryAfterMs: entry.expiresAt - monotonicNow() };
    if (entry === undefined && (this.#queues.get(request.key)?.length ?? 0) > 0) return { acquired: false, retryAfterMs: 1 };
    return undefined;
  }

  #take(request: DriverAcquireRequest, current: Entry | undefined): DriverGranted {
    const now = monotonicNow();
    if (current !== undefined) {
      current.holdCount += 1;
      current.expiresAt = Math.max(current.expiresAt, now + request.ttlMs);
      this.#armExpiry(request.key);
      return { acquired: true, fencingToken: current.fencingToken, holdCount: current.holdCount, ttlMs: current.expiresAt - now };
    }
    const fencingToken = (this.#counters.get(request.key) ?? 0n) + 1n;
    this.#counters.set(request.key, fencingToken);
    this.#entries.set(request.key, { ownerSecret: request.ownerSecret, holder: request.holder, holdCount: 1, fencingToken, expiresAt: now + request.ttlMs });
    this.#armExpiry(request.key);
    return { acquired: true, fencingToken, holdCount: 1, ttlMs: request.ttlMs, grantedAt: now };
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.expiresAt > monotonicNow()) return entry;
    this.#free(key);
    return undefined;
  }

  #free(key: string): void {
    this.#entries.delete(key);
    clearTimeout(this.#expiryTimers.get(key));
    this.#expiryTimers.delete(key);
    const next = this.#queues.get(key)?.shift();
    if (this.#queues.get(key)?.length === 0) this.#queues.delete(key);
    if (next !== undefined) next.grant(this.#take(next.request, undefined));
    for (const listener of this.#releaseListeners.get(key) ?? []) listener();
  }

  #armExpiry(key: string): void {
    clearTimeout(this.#expiryTimers.get(key));
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    const timer = setTimeout(
      () => {
        if (this.#live(key) !== undefined) this.#armExpiry(key);
      },
      Math.max(0, entry.expiresAt - monotonicNow()) + 1,
    );
    timer.unref();
    this.#expiryTimers.set(key, timer);
  }

  #assertUp(): void {
    if (this.#outage) throw new BackendUnavailableError("memory", "simulated outage");
  }
}
