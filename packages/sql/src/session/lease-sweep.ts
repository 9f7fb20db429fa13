import { monotonicNow } from "@distlock/core/internal";

/**
 * One timer for every lease of a lock space, in place of one per hold: it fires at the earliest lease end it was told
 * of, hands each lease that has run out to `expired`, and re-arms for the earliest of the rest. Leases only move later
 * (renewals, re-entries), so a space whose holds are renewed sweeps at most once per two thirds of its shortest TTL.
 */
export class LeaseSweep<T extends { readonly expiresAt: number }> {
  readonly #leases: () => Iterable<T>;
  readonly #expired: (lease: T) => void;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  constructor(leases: () => Iterable<T>, expired: (lease: T) => void) {
    this.#leases = leases;
    this.#expired = expired;
  }

  /** A lease ends at `expiresAt` (a `performance.now()` time): sweep no later than that. */
  due(expiresAt: number): void {
    if (expiresAt >= this.#armedFor) return;
    clearTimeout(this.#timer);
    this.#armedFor = expiresAt;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, expiresAt - monotonicNow()));
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }

  #sweep(): void {
    this.stop();
    const now = monotonicNow();
    let next = Number.POSITIVE_INFINITY;
    for (const lease of [...this.#leases()]) {
      if (lease.expiresAt <= now) this.#expired(lease);
      else next = Math.min(next, lease.expiresAt);
    }
    if (next !== Number.POSITIVE_INFINITY) this.due(next);
  }
}
