import type { Hold } from "./hold.js";
import type { LockHandle } from "./lock-handle.js";

/** A release that went through, as `Promise.allSettled` reports it. */
const FULFILLED: PromiseFulfilledResult<void> = Object.freeze({ status: "fulfilled", value: undefined });

/**
 * Lock handles released together by one driver call. A member's own promise is made only when its `release()` is called
 * (a multi-key set's release reads the outcomes of all of them at once), so a set of N keys makes no promise per key.
 */
export class ReleaseBatch {
  readonly holds: Hold[] = [];
  readonly #handles: LockHandle[] = [];
  readonly #detached: boolean[] = [];
  #results: PromiseSettledResult<void>[] | undefined;
  #done: Promise<unknown> | undefined;

  /** Adds `handle`'s level of `hold` (`detached`: an earlier try let go of it locally); answers its place in the batch. */
  join(hold: Hold, detached: boolean, handle: LockHandle): number {
    if (hold.openHandles <= 1) hold.releasing = true;
    this.#handles.push(handle);
    this.#detached.push(detached);
    return this.holds.push(hold) - 1;
  }

  /**
   * The batch's driver call answered (or failed): `apply` does what that means to each member, throwing for one whose
   * release failed (`index`: its place in the batch). Answers each member's outcome, in order.
   */
  settle(apply: (hold: Hold, detached: boolean, handle: LockHandle, index: number) => void): PromiseSettledResult<void>[] {
    const results: PromiseSettledResult<void>[] = [];
    for (let i = 0; i < this.holds.length; i++) {
      try {
        apply(this.holds[i] as Hold, this.#detached[i] as boolean, this.#handles[i] as LockHandle, i);
        results.push(FULFILLED);
      } catch (reason) {
        results.push({ status: "rejected", reason });
      }
    }
    this.#results = results;
    return results;
  }

  /** `done` settles once `settle` has run. */
  sent(done: Promise<unknown>): void {
    this.#done = done;
  }

  /** The member at `index`'s release, as its own promise. */
  outcomeOf(index: number): Promise<void> {
    const results = this.#results;
    if (results !== undefined) return asPromise(results[index] as PromiseSettledResult<void>);
    return (this.#done as Promise<unknown>).then(() => asPromise((this.#results as PromiseSettledResult<void>[])[index] as PromiseSettledResult<void>));
  }
}

function asPromise(result: PromiseSettledResult<void>): Promise<void> {
  return result.status === "fulfilled" ? Promise.resolve() : Promise.reject(result.reason);
}
