import { describe, expect, it } from "vitest";
import { LeaseObservations, takeoverWaitMs } from "./lease-observations.js";

describe("lease observations", () => {
  it("count a lease from the first sight of a version, and restart on a new one", () => {
    const observations = new LeaseObservations();
    expect(observations.seen("k", 7, 1_000)).toBe(1_000);
    expect(observations.seen("k", 7, 1_500)).toBe(1_000);
    expect(LeaseObservations.remainingMs(1_000, 1_000, 1_500)).toBe(takeoverWaitMs(1_000) - 500);
    expect(observations.seen("k", 8, 1_600)).toBe(1_600);
  });

  it("wait the lease plus the drift allowance before a take-over, never less than the lease", () => {
    expect(takeoverWaitMs(1_000)).toBe(1_030);
    expect(LeaseObservations.remainingMs(1_000, 0, 1_029)).toBe(1);
    expect(LeaseObservations.remainingMs(1_000, 0, 1_030)).toBe(0);
  });

  it("keep a record's entries while it holds them, lapsed ones included, and forget those that left it", () => {
    const observations = new LeaseObservations();
    observations.seen("sem#a", "v1", 0, "sem");
    observations.seen("sem#b", "v1", 0, "sem");
    observations.keepOnly("sem", new Set(["sem#a"]));
    expect(observations.seen("sem#a", "v1", 5_000, "sem")).toBe(0);
    expect(observations.seen("sem#b", "v1", 5_000, "sem")).toBe(5_000);
    observations.keepOnly("sem", new Set());
    expect(observations.seen("sem#a", "v1", 6_000)).toBe(6_000);
  });
});
