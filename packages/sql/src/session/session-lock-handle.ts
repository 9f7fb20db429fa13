import type { Lock } from "@distlock/core";
import type { SessionHoldLoss } from "./session-hold.js";

/**
 * `lock` with a signal that also aborts the moment its database session is gone, instead of at the lease deadline
 * (core learns of the loss from the next renewal or release, which fail as well).
 */
export class SessionLockHandle implements Lock {
  readonly #lock: Lock;
  readonly #hold: SessionHoldLoss;
  #signal: AbortSignal | undefined;

  constructor(lock: Lock, hold: SessionHoldLoss) {
    this.#lock = lock;
    this.#hold = hold;
  }

  get key(): string {
    return this.#lock.key;
  }
  get holder(): string {
    return this.#lock.holder;
  }
  get fencingToken(): bigint | null {
    return this.#lock.fencingToken;
  }
  get holdCount(): number {
    return this.#lock.holdCount;
  }
  get validUntil(): number {
    return this.#lock.validUntil;
  }
  get signal(): AbortSignal {
    // Core's getter checks the lease deadline on every read (its timer may not have run yet after a pause), and the
    // combined signal follows it at once: read it every time, not only when combining.
    const lease = this.#lock.signal;
    this.#signal ??= AbortSignal.any([this.#hold.lost, lease]);
    return this.#signal;
  }

  remainingMs(): number {
    return this.#hold.isLost ? 0 : this.#lock.remainingMs();
  }

  renew(ttlMs?: number): Promise<void> {
    return this.#lock.renew(ttlMs);
  }

  release(): Promise<void> {
    return this.#lock.release();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
