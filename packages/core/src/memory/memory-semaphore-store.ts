import type { DriverGranted, DriverRefused, DriverRenewal } from "../driver/driver-attempt.js";
import type { DriverPermitRequest } from "../driver/semaphore-driver.js";
import { PermitsMismatchError } from "../errors/permits-mismatch-error.js";
import { monotonicNow } from "../time/monotonic.js";
import type { SemaphoreState } from "../types.js";
import { type LineWaiter, waitInLine } from "./wait-in-line.js";

interface Grant {
  holder: string;
  count: number;
  fencingToken: bigint;
  expiresAt: number;
}

type Waiter = LineWaiter<DriverPermitRequest>;

/** One semaphore in use: its permit count, its grants by owner secret, and its line. */
interface SemaphoreEntry {
  permits: number;
  readonly grants: Map<string, Grant>;
  readonly line: Waiter[];
  timer: NodeJS.Timeout | undefined;
}

/**
 * The semaphores of a `MemoryLockStore`. A semaphore exists while anyone holds or waits; its permit count is the one it
 * was created with until then. The line is strict FIFO: a waiter for n permits blocks every later arrival, even one
 * that would fit, so large requests are never starved.
 */
export class MemorySemaphoreStore {
  readonly #entries = new Map<string, SemaphoreEntry>();
  readonly #counters = new Map<string, bigint>();
  readonly #assertUp: () => void;

  constructor(assertUp: () => void) {
    this.#assertUp = assertUp;
  }

  tryAcquire(request: DriverPermitRequest): DriverGranted | DriverRefused {
    this.#assertUp();
    const entry = this.#entry(request);
    const result = entry.line.length === 0 ? this.#take(request, entry) : undefined;
    if (result !== undefined) return result;
    this.#dropIfIdle(request.key, entry);
    return { acquired: false, retryAfterMs: this.#nextExpiryMs(entry) };
  }

  /** Takes the permits, or joins the line and resolves when they are granted; `signal` withdraws the waiter. */
  acquire(request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted> {
    const result = this.tryAcquire(request);
    if (result.acquired) return Promise.resolve(result);
    const entry = this.#entry(request);
    // The head may leave: the next waiters may fit then.
    return waitInLine(entry.line, request, signal, () => this.#grantWaiters(request.key, entry));
  }

  renew(renewals: readonly DriverRenewal[]): boolean[] {
    this.#assertUp();
    return renewals.map(({ key, ownerSecret, ttlMs }) => {
      const entry = this.#live(key);
      const grant = entry?.grants.get(ownerSecret);
      if (entry === undefined || grant === undefined) return false;
      grant.expiresAt = Math.max(grant.expiresAt, monotonicNow() + ttlMs);
      this.#armExpiry(key, entry);
      return true;
    });
  }

  release(name: string, ownerSecret: string): boolean {
    this.#assertUp();
    const entry = this.#live(name);
    if (entry === undefined || !entry.grants.delete(ownerSecret)) return false;
    this.#grantWaiters(name, entry);
    return true;
  }

  inspect(name: string): SemaphoreState | null {
    this.#assertUp();
    const entry = this.#live(name);
    if (entry === undefined) return null;
    const now = monotonicNow();
    const holders = [...entry.grants.values()]
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .map((grant) => ({ holder: grant.holder, count: grant.count, fencingToken: grant.fencingToken, ttlRemainingMs: Math.max(0, grant.expiresAt - now) }));
    return { name, permits: entry.permits, inUse: inUse(entry), holders, waiters: entry.line.length };
  }

  /** The live entry of `request`'s semaphore, made if none; refuses another permit count while it is in use. */
  #entry(request: DriverPermitRequest): SemaphoreEntry {
    let entry = this.#live(request.key);
    if (entry === undefined) {
      entry = { permits: request.permits, grants: new Map(), line: [], timer: undefined };
      this.#entries.set(request.key, entry);
    }
    if (entry.permits !== request.permits) throw new PermitsMismatchError(request.key, request.permits, entry.permits);
    return entry;
  }

  #take(request: DriverPermitRequest, entry: SemaphoreEntry): DriverGranted | undefined {
    if (inUse(entry) + request.count > entry.permits) return undefined;
    const now = monotonicNow();
    const fencingToken = (this.#counters.get(request.key) ?? 0n) + 1n;
    this.#counters.set(request.key, fencingToken);
    entry.grants.set(request.ownerSecret, { holder: request.holder, count: request.count, fencingToken, expiresAt: now + request.ttlMs });
    this.#armExpiry(request.key, entry);
    return { acquired: true, fencingToken, holdCount: 1, ttlMs: request.ttlMs, grantedAt: now };
  }

  /** Grants the line from its head while the head fits. */
  #grantWaiters(name: string, entry: SemaphoreEntry): void {
    for (let head = entry.line[0]; head !== undefined; head = entry.line[0]) {
      const granted = this.#take(head.request, entry);
      if (granted === undefined) break;
      entry.line.shift();
      head.grant(granted);
    }
    this.#dropIfIdle(name, entry);
  }

  /** The entry of `name` with its expired grants dropped (and the line served), or undefined once it is idle. */
  #live(name: string): SemaphoreEntry | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    const now = monotonicNow();
    let expired = false;
    for (const [secret, grant] of entry.grants) {
      if (grant.expiresAt <= now) {
        entry.grants.delete(secret);
        expired = true;
      }
    }
    if (expired) this.#grantWaiters(name, entry);
    return this.#entries.get(name);
  }

  #dropIfIdle(name: string, entry: SemaphoreEntry): void {
    if (entry.grants.size > 0 || entry.line.length > 0) return;
    clearTimeout(entry.timer);
    if (this.#entries.get(name) === entry) this.#entries.delete(name);
  }

  #nextExpiryMs(entry: SemaphoreEntry): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const grant of entry.grants.values()) soonest = Math.min(soonest, grant.expiresAt);
    return soonest === Number.POSITIVE_INFINITY ? 1 : Math.max(1, soonest - monotonicNow());
  }

  /** Wakes at the soonest expiry, so a lapsed grant frees its permits for the line even when nobody calls. */
  #armExpiry(name: string, entry: SemaphoreEntry): void {
    clearTimeout(entry.timer);
    if (entry.grants.size === 0) return;
    entry.timer = setTimeout(() => {
      const live = this.#live(name);
      if (live !== undefined) this.#armExpiry(name, live);
    }, this.#nextExpiryMs(entry) + 1);
    entry.timer.unref();
  }
}

function inUse(entry: SemaphoreEntry): number {
  let total = 0;
  for (const grant of entry.grants.values()) total += grant.count;
  return total;
}
