/**
 * The tokens a fenced acquisition proposes to the nodes: the wall clock in µs, and never at or below a counter a node
 * reported or a token this provider was granted. A node grants only a proposal above its counter, so the clock only
 * decides how often a proposal is refused as outdated (clients whose clocks disagree), never whether tokens rise.
 */
export class TokenProposals {
  #floor = 0n;

  next(): bigint {
    const clockUs = BigInt(wallClockMicros());
    return clockUs > this.#floor ? clockUs : this.#floor;
  }

  /** Later proposals go above `token`. */
  raiseAbove(token: bigint): void {
    if (token >= this.#floor) this.#floor = token + 1n;
  }
}

/** This process's wall clock in µs (an integer below 2^53). */
export function wallClockMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
