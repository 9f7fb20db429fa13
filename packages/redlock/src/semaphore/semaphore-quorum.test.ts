import { MAX_READERS } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { countingQuorum, semaphoreQuorum } from "./semaphore-quorum.js";

/** True when `holders` one-permit grants, each on `quorum` of `nodes` nodes, fit with no node over `permits` (cyclic placement). */
function fitTogether(holders: number, quorum: number, nodes: number, permits: number): boolean {
  const load = new Array<number>(nodes).fill(0);
  for (let h = 0; h < holders; h++) for (let i = 0; i < quorum; i++) load[(h * quorum + i) % nodes] = (load[(h * quorum + i) % nodes] ?? 0) + 1;
  return load.every((l) => l <= permits);
}

describe("countingQuorum", () => {
  it("is a majority for one permit and the brief's values on 5 nodes", () => {
    expect([1, 2, 3, 4, 5, 1000].map((p) => countingQuorum(5, p))).toEqual([3, 4, 4, 5, 5, 5]);
    expect([1, 2, 3, 7].map((n) => countingQuorum(n, 1))).toEqual([1, 2, 2, 4]);
  });

  it("is the smallest quorum at which permits + 1 one-permit grants can no longer be placed", () => {
    for (let nodes = 1; nodes <= 9; nodes++) {
      for (let permits = 1; permits <= 12; permits++) {
        const quorum = countingQuorum(nodes, permits);
        expect(fitTogether(permits + 1, quorum, nodes, permits)).toBe(false);
        if (quorum > 1) expect(fitTogether(permits + 1, quorum - 1, nodes, permits)).toBe(true);
      }
    }
  });

  it("stays exact at the largest permit count", () => {
    expect(countingQuorum(5, 1_000_000)).toBe(5);
  });
});

describe("semaphoreQuorum", () => {
  it("takes a majority for a read-write lock's semaphore only", () => {
    expect(semaphoreQuorum(5, "rwlock:doc", MAX_READERS)).toBe(3);
    expect(semaphoreQuorum(5, "doc", MAX_READERS)).toBe(5);
    expect(semaphoreQuorum(5, "rwlock:doc", 2)).toBe(4);
  });
});
