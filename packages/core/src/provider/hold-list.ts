import type { Hold } from "./hold.js";

/**
 * The holds of a provider, each knowing its own slot: adding and removing cost no hashing. A `Set` of holds, churned
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
    if (hold.listSlot >= 0) return;
    hold.listSlot = this.#holds.length;
    this.#holds.push(hold);
  }

  /** Takes `hold` off (the last hold moves into its slot). */
  remove(hold: Hold): void {
    const slot = hold.listSlot;
    if (slot < 0) return;
    hold.listSlot = -1;
    const last = this.#holds.pop() as Hold;
    if (last === hold) return;
    last.listSlot = slot;
    this.#holds[slot] = last;
  }

  /** The holds now, as a copy: what is done to each may take it off the list. */
  snapshot(): Hold[] {
    return [...this.#holds];
  }

  [Symbol.iterator](): Iterator<Hold> {
    return this.#holds[Symbol.iterator]();
  }
}
