import type { DriverAcquireRequest } from "@distlock/core/driver";
import { describe, expect, it } from "vitest";
import { unnestedRuns } from "./take-in-runs.js";

const runsOf = (keys: string[]) =>
  unnestedRuns(keys.map((key): DriverAcquireRequest => ({ key, ownerSecret: "s", holder: "h", ttlMs: 1000 }))).map((run) => run.map(({ key }) => key));

describe("unnestedRuns", () => {
  it("keeps a set without nested keys in one run", () => {
    expect(runsOf(["a", "a!", "ab", "b/c"])).toEqual([["a", "a!", "ab", "b/c"]]);
  });

  it("starts a new run at a key that extends a key of the current run with /", () => {
    expect(runsOf(["a", "a!", "a/b", "a/c", "a/c/d"])).toEqual([["a", "a!"], ["a/b", "a/c"], ["a/c/d"]]);
  });
});
