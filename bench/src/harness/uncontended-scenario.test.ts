import { describe, expect, it } from "vitest";
import { turnOrder } from "./uncontended-scenario.js";

describe("turnOrder", () => {
  it("keeps the subjects' order in even rounds and reverses it in odd ones, with each subject's own index", () => {
    expect(turnOrder(["a", "b", "c"], 0)).toEqual([
      [0, "a"],
      [1, "b"],
      [2, "c"],
    ]);
    expect(turnOrder(["a", "b", "c"], 1)).toEqual([
      [2, "c"],
      [1, "b"],
      [0, "a"],
    ]);
    expect(turnOrder(["a", "b", "c"], 2)).toEqual(turnOrder(["a", "b", "c"], 0));
  });
});
