import { describe, expect, it } from "vitest";
import { releaseSet } from "./release-set.js";

describe("releaseSet", () => {
  it("releases a key held through a cohort by itself, the rest together, and answers in the set's order", async () => {
    const calls: string[] = [];
    const outcomes = await releaseSet(
      ["a", "b", "c", "d"],
      (key) => key === "b" || key === "d",
      async (key) => {
        calls.push(`one ${key}`);
        return { held: true, holdCount: key === "b" ? 1 : 0 };
      },
      async (keys) => {
        calls.push(`together ${keys.join(",")}`);
        return keys.map((key) => ({ held: key === "a", holdCount: 0 }));
      },
    );
    expect(calls.sort()).toEqual(["one b", "one d", "together a,c"]);
    expect(outcomes).toEqual([
      { held: true, holdCount: 0 },
      { held: true, holdCount: 1 },
      { held: false, holdCount: 0 },
      { held: true, holdCount: 0 },
    ]);
  });

  it("sends one call for a set with no cohort key", async () => {
    const calls: string[] = [];
    await releaseSet(
      ["a", "b"],
      () => false,
      async () => {
        calls.push("one");
        return { held: true, holdCount: 0 };
      },
      async (keys) => {
        calls.push(`together ${keys.join(",")}`);
        return keys.map(() => ({ held: true, holdCount: 0 }));
      },
    );
    expect(calls).toEqual(["together a,b"]);
  });
});
