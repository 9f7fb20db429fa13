import type { Lock, Permit } from "../types.js";

/** A permit grant: the lock-shaped hold the provider machinery keeps for it, with its semaphore's name and count. */
export class PermitHandle implements Permit {
  readonly name: string;
  readonly count: number;
  readonly #lock: Lock;

  constructor(lock: Lock, count: number) {
    this.name = lock.key;
    this.count = count;
    this.#lock = lock;
  }

  get holder(): string {
    return this.#lock.holder;
  }

  get fencingToken(): bigint | null {
    return this.#lock.fencingToken;
  }

  get signal(): AbortSignal {
    return this.#lock.signal;
  }

  get validUntil(): number {
    return this.#lock.validUntil;
  }

  remainingMs(): number {
    return this.#lock.remainingMs();
  }

  renew(ttlMs?: number): Promise<void> {
    return this.#lock.renew(ttlMs);
  }

  release(): Promise<void> {
    return this.#lock.release();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#lock.release();
  }
}
