import type { Permit } from "../types.js";

/**
 * One grant of a read-write lock on the server (the permits of its semaphore: 1 for a reader, all for a writer) and
 * the holds its owner has open on it: the first acquire's and every re-entry's. The grant is given back with the last.
 */
export class SharedGrant {
  readonly permit: Permit;
  /** True for a writer's grant: it keeps everyone else out until its last hold is released, whatever side that one took. */
  readonly exclusive: boolean;
  readonly #onEnd: (grant: SharedGrant) => void;
  #holds = 0;

  /** `onEnd` runs once the last hold let go. */
  constructor(permit: Permit, exclusive: boolean, onEnd: (grant: SharedGrant) => void) {
    this.permit = permit;
    this.exclusive = exclusive;
    this.#onEnd = onEnd;
  }

  /** True while a hold is open and the grant can still be proven (its lease deadline has not passed unrenewed). */
  get live(): boolean {
    return this.#holds > 0 && this.permit.remainingMs() > 0;
  }

  /** One more hold opens on the grant; returns how many are open now. */
  open(): number {
    this.#holds += 1;
    return this.#holds;
  }

  /** One hold lets go (once per hold); the last one ends the grant here. */
  letGo(): void {
    this.#holds -= 1;
    if (this.#holds === 0) this.#onEnd(this);
  }

  /**
   * What a hold's release waits for once it let go: the grant given back when no hold is left (retried by calling again
   * after a failure), else nothing, unless the grant was lost meanwhile (`LockLostError`, as a lock's release says).
   */
  async settle(): Promise<void> {
    if (this.#holds === 0) return this.permit.release();
    if (this.permit.remainingMs() === 0) throw this.permit.signal.reason;
  }
}
