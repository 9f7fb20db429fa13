import type { WireGrant, WirePermitRequest, WireRefusal, WireRenewal, WireSemaphoreState } from "../protocol/lockd-protocol.js";

interface Grant {
  readonly holder: string;
  readonly count: number;
  readonly token: bigint;
  expiresAt: number;
}

/** A request waiting in a semaphore's line, answered once granted (or taken back). */
export interface PermitWaiter {
  readonly request: WirePermitRequest;
  /** The connection it came on; its waiters leave the line when it closes. */
  readonly connection: object;
  grant(granted: WireGrant): void;
  withdrawn(): void;
}

/** A semaphore in use: its permit count, its grants by owner secret, its strict FIFO line, and the timer of its soonest expiry. */
interface Semaphore {
  readonly permits: number;
  readonly grants: Map<string, Grant>;
  readonly line: PermitWaiter[];
  timer: NodeJS.Timeout | undefined;
}

/** Thrown when a semaphore in use is asked for with another permit count; the server answers PERMITS_MISMATCH. */
export class PermitsMismatch extends Error {
  constructor(
    readonly permits: number,
    readonly storedPermits: number,
  ) {
    super(`the semaphore is in use with ${storedPermits} permits, not ${permits}`);
  }
}

/**
 * The counting semaphores of a lockd server. A semaphore exists while anyone holds or waits, with the permit count it
 * was made with. The line is strict FIFO: a waiter for n permits blocks every later arrival, even one that would fit.
 * As in `LockTable`, every method runs to its end without awaiting: one atomic operation per request.
 */
export class SemaphoreTable {
  readonly #semaphores = new Map<string, Semaphore>();
  readonly #tokens = new Map<string, bigint>();

  /** Takes the permits if they are free and nobody waits ahead; else queues `waiter` (answered later) or refuses. */
  acquire(request: WirePermitRequest, waiter?: PermitWaiter): WireGrant | WireRefusal | "queued" {
    let semaphore = this.#live(request.name);
    if (semaphore === undefined) {
      semaphore = { permits: request.permits, grants: new Map(), line: [], timer: undefined };
      this.#semaphores.set(request.name, semaphore);
    }
    if (semaphore.permits !== request.permits) throw new PermitsMismatch(request.permits, semaphore.permits);
    const granted = semaphore.line.length === 0 ? this.#take(request, semaphore) : undefined;
    if (granted !== undefined) return granted;
    if (waiter !== undefined) {
      semaphore.line.push(waiter);
      return "queued";
    }
    this.#dropIfIdle(request.name, semaphore);
    return { acquired: false, retryAfterMs: soonestExpiryMs(semaphore) };
  }

  /** Takes back what `secret` asked for: its place in line, or its grant if it was granted meanwhile. */
  withdraw(name: string, secret: string): boolean {
    const semaphore = this.#live(name);
    if (semaphore === undefined) return false;
    const index = semaphore.line.findIndex((waiter) => waiter.request.secret === secret);
    const [waiter] = index === -1 ? [] : semaphore.line.splice(index, 1);
    waiter?.withdrawn();
    const found = waiter !== undefined || semaphore.grants.delete(secret);
    this.#serve(name, semaphore);
    return found;
  }

  /** A connection closed: its waiters leave every line (grants stay until their leases end). */
  dropConnection(connection: object): void {
    for (const [name, semaphore] of this.#semaphores) {
      const kept = semaphore.line.filter((waiter) => waiter.connection !== connection);
      if (kept.length === semaphore.line.length) continue;
      semaphore.line.splice(0, semaphore.line.length, ...kept);
      this.#serve(name, semaphore);
    }
  }

  renew(renewals: readonly WireRenewal[]): boolean[] {
    const now = performance.now();
    return renewals.map(({ key, secret, ttlMs }) => {
      const semaphore = this.#live(key);
      const grant = semaphore?.grants.get(secret);
      if (semaphore === undefined || grant === undefined) return false;
      grant.expiresAt = Math.max(grant.expiresAt, now + ttlMs);
      this.#armExpiry(key, semaphore);
      return true;
    });
  }

  release(name: string, secret: string): boolean {
    const semaphore = this.#live(name);
    if (semaphore === undefined || !semaphore.grants.delete(secret)) return false;
    this.#serve(name, semaphore);
    return true;
  }

  inspect(name: string): WireSemaphoreState | null {
    const semaphore = this.#live(name);
    if (semaphore === undefined) return null;
    const now = performance.now();
    const holders = [...semaphore.grants.values()]
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .map((grant) => ({
        holder: grant.holder,
        count: grant.count,
        token: String(grant.token),
        ttlRemainingMs: Math.max(0, Math.floor(grant.expiresAt - now)),
      }));
    return { name, permits: semaphore.permits, inUse: inUse(semaphore), holders, waiters: semaphore.line.length };
  }

  #take(request: WirePermitRequest, semaphore: Semaphore): WireGrant | undefined {
    if (inUse(semaphore) + request.count > semaphore.permits) return undefined;
    const token = (this.#tokens.get(request.name) ?? 0n) + 1n;
    this.#tokens.set(request.name, token);
    semaphore.grants.set(request.secret, { holder: request.holder, count: request.count, token, expiresAt: performance.now() + request.ttlMs });
    this.#armExpiry(request.name, semaphore);
    return { acquired: true, token: String(token), holdCount: 1, ttlMs: request.ttlMs };
  }

  /** Grants the line from its head while the head fits, then forgets the semaphore if nobody holds or waits. */
  #serve(name: string, semaphore: Semaphore): void {
    for (let head = semaphore.line[0]; head !== undefined; head = semaphore.line[0]) {
      const granted = this.#take(head.request, semaphore);
      if (granted === undefined) break;
      semaphore.line.shift();
      head.grant(granted);
    }
    this.#dropIfIdle(name, semaphore);
  }

  /** The semaphore with its lapsed grants dropped and its line served, or undefined once it is idle. */
  #live(name: string): Semaphore | undefined {
    const semaphore = this.#semaphores.get(name);
    if (semaphore === undefined) return undefined;
    const now = performance.now();
    let lapsed = false;
    for (const [secret, grant] of semaphore.grants) {
      if (grant.expiresAt > now) continue;
      semaphore.grants.delete(secret);
      lapsed = true;
    }
    if (lapsed) this.#serve(name, semaphore);
    return this.#semaphores.get(name);
  }

  #dropIfIdle(name: string, semaphore: Semaphore): void {
    if (semaphore.grants.size > 0 || semaphore.line.length > 0) return;
    clearTimeout(semaphore.timer);
    if (this.#semaphores.get(name) === semaphore) this.#semaphores.delete(name);
  }

  /** Wakes at the soonest expiry, so a lapsed grant frees its permits for the line even when no request comes. */
  #armExpiry(name: string, semaphore: Semaphore): void {
    clearTimeout(semaphore.timer);
    if (semaphore.grants.size === 0) return;
    semaphore.timer = setTimeout(() => {
      const live = this.#live(name);
      if (live !== undefined) this.#armExpiry(name, live);
    }, soonestExpiryMs(semaphore) + 1);
  }
}

function inUse(semaphore: Semaphore): number {
  let total = 0;
  for (const grant of semaphore.grants.values()) total += grant.count;
  return total;
}

function soonestExpiryMs(semaphore: Semaphore): number {
  let soonest = Number.POSITIVE_INFINITY;
  for (const grant of semaphore.grants.values()) soonest = Math.min(soonest, grant.expiresAt);
  return soonest === Number.POSITIVE_INFINITY ? 1 : Math.max(1, Math.ceil(soonest - performance.now()));
}
