import { describe, expect, it } from "vitest";
import { percentile } from "./stats.js";

describe("percentile", () => {
  it("is the nearest-rank value of the sorted samples, NaN without samples", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });
});
