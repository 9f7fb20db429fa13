import type { Hold } from "./hold.js";

/**
 * The holds of a provider, each knowing its own index: adding and removing cost no hashing. A `Set` of holds, churned
 * by every acquire and release, rehashed its table every few operations and cost more than the rest of the hold's
 * bookkeeping.
 */
export class HoldList {
  readonly #holds: Hold[] = [];

  get size(): number {
    return this.#holds.length;
  }

  /** Adds `hold` unless it is here already. */
  add(hold: Hold): void {
    if (hold.listIndex >= 0) return;
    hold.listIndex = this.#holds.length;
    this.#holds.push(hold);
  }

  /** Takes `hold` off (the last hold moves into its place). */
  remove(hold: Hold): void {
    const index = hold.listIndex;
    if (index < 0) return;
    hold.listIndex = -1;
    const last = this.#holds.pop() as Hold;
    if (last === hold) return;
    last.listIndex = index;
    this.#holds[index] = last;
  }

  /** The holds now, as a copy: what is done to each may take it off the list. */
  snapshot(): Hold[] {
    return [...this.#holds];
  }

  [Symbol.iterator](): Iterator<Hold> {
    return this.#holds[Symbol.iterator]();
  }
}
