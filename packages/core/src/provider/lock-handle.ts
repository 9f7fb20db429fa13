import { monotonicNow } from "../time/monotonic.js";
import type { Lock } from "../types.js";
import type { Hold } from "./hold.js";
import type { ReleaseBatch } from "./release-batch.js";

/** How the provider tells a handle that its release failed (a symbol: not part of the `Lock` users see). */
export const RELEASE_FAILED = Symbol("releaseFailed");
/** How the provider releases a handle together with others (one driver call for several keys), keeping `release()`'s state. */
export const JOIN_RELEASE = Symbol("joinRelease");

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
  /** The batch this handle's release went out in (`JOIN_RELEASE`), and its place there. */
  #batch: ReleaseBatch | undefined;
  #inBatch = -1;
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
    this.#release ??= this.#batch === undefined ? this.#operations.release(this.#hold, this.#detached, this) : this.#batch.outcomeOf(this.#inBatch);
    return this.#release;
  }

  /**
   * Puts this handle's release in `batch` (sent by the provider with others in one driver call), unless its release is
   * already pending or done: then answers that release, as `release()` does.
   */
  [JOIN_RELEASE](batch: ReleaseBatch): Promise<void> | undefined {
    if (this.#release !== undefined || this.#batch !== undefined) return this.release();
    this.#batch = batch;
    this.#inBatch = batch.join(this.#hold, this.#detached, this);
    return undefined;
  }

  /** The release failed: the handle has let go here, and the next `release()` tries the server again. */
  [RELEASE_FAILED](): void {
    this.#detached = true;
    this.#release = undefined;
    this.#batch = undefined;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
