import { monotonicNow } from "../time/monotonic.js";
import type { Lock } from "../types.js";
import type { Hold } from "./hold.js";

/** How the provider tells a handle that its release failed (a symbol: not part of the `Lock` users see). */
export const RELEASE_FAILED = Symbol("releaseFailed");
/** How the provider releases a handle together with others (one driver call for several keys), keeping `release()`'s state. */
export const RELEASE_THROUGH = Symbol("releaseThrough");

/** What a handle asks of the provider that made it. */
export interface HoldOperations {
  /**
   * Releases `handle`'s level of `hold`; a failure is reported to `handle[RELEASE_FAILED]()` before it rejects.
   * `detached`: an earlier failed try of this handle already let go of it locally.
   */
  release(hold: Hold, detached: boolean, handle: LockHandle): Promise<void>;
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
    // The handle's own state on failure is set by the provider through RELEASE_FAILED: no promise around the release's.
    this.#release ??= this.#operations.release(this.#hold, this.#detached, this);
    return this.#release;
  }

  /** `release()`, with the provider's level release made by `release` (called at most once while it is pending or done). */
  [RELEASE_THROUGH](release: (hold: Hold, detached: boolean, handle: LockHandle) => Promise<void>): Promise<void> {
    this.#release ??= release(this.#hold, this.#detached, this);
    return this.#release;
  }

  /** The release failed: the handle has let go here, and the next `release()` tries the server again. */
  [RELEASE_FAILED](): void {
    this.#detached = true;
    this.#release = undefined;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
