import { monotonicNow } from "../time/monotonic.js";
import type { Lock } from "../types.js";
import type { Hold } from "./hold.js";

/** What a handle asks of the provider that made it. */
export interface HoldOperations {
  /** `detached`: an earlier failed try of this handle already let go of it locally. */
  release(hold: Hold, detached: boolean): Promise<void>;
  renew(hold: Hold, ttlMs: number | undefined): Promise<void>;
}

/** One successful acquire; several handles share a `Hold` when the owner re-enters. */
export class LockHandle implements Lock {
  readonly key: string;
  readonly holder: string;
  readonly fencingToken: bigint | null;
  readonly holdCount: number;
  readonly #hold: Hold;
  readonly #operations: HoldOperations;
  #release: Promise<void> | undefined;
  #detached = false;

  constructor(hold: Hold, holder: string, holdCount: number, operations: HoldOperations) {
    this.key = hold.key;
    this.holder = holder;
    this.fencingToken = hold.fencingToken;
    this.holdCount = holdCount;
    this.#hold = hold;
    this.#operations = operations;
  }

  get signal(): AbortSignal {
    return this.#hold.signal;
  }

  get validUntil(): number {
    return this.#hold.validUntil;
  }

  remainingMs(): number {
    if (this.#hold.lostReason !== undefined) return 0;
    return Math.max(0, this.#hold.validUntil - monotonicNow());
  }

  renew(ttlMs?: number): Promise<void> {
    return this.#operations.renew(this.#hold, ttlMs);
  }

  release(): Promise<void> {
    this.#release ??= this.#operations.release(this.#hold, this.#detached).catch((error: unknown) => {
      this.#detached = true;
      this.#release = undefined;
      throw error;
    });
    return this.#release;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
