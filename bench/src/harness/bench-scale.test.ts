import { describe, expect, it } from "vitest";
import { benchScaleFrom, DEFAULT_BENCH_SCALE, QUICK_BENCH_SCALE, scaledCount, scaledMs, scaledWorkerCounts } from "./bench-scale.js";

describe("bench scale", () => {
  it("is quick only when DISTLOCK_BENCH_QUICK=1", () => {
    expect(benchScaleFrom({ DISTLOCK_BENCH_QUICK: "1" })).toBe(QUICK_BENCH_SCALE);
    expect(benchScaleFrom({ DISTLOCK_BENCH_QUICK: "0" })).toBe(DEFAULT_BENCH_SCALE);
    expect(benchScaleFrom({})).toBe(DEFAULT_BENCH_SCALE);
  });

  it("leaves the full run as it is", () => {
    expect(scaledCount(3_000, DEFAULT_BENCH_SCALE)).toBe(3_000);
    expect(scaledMs(3_000, DEFAULT_BENCH_SCALE)).toBe(3_000);
    expect(scaledWorkerCounts([4, 16, 64], DEFAULT_BENCH_SCALE)).toEqual([4, 16, 64]);
  });

  it("shrinks a quick run's counts and windows but never to nothing, and keeps the smallest W", () => {
    expect(scaledCount(3_000, QUICK_BENCH_SCALE)).toBe(300);
    expect(scaledCount(5, QUICK_BENCH_SCALE)).toBe(1);
    expect(scaledMs(3_000, QUICK_BENCH_SCALE)).toBe(1_000);
    expect(scaledWorkerCounts([4, 16, 64], QUICK_BENCH_SCALE)).toEqual([4]);
    expect(scaledWorkerCounts([8, 16], QUICK_BENCH_SCALE)).toEqual([8]);
  });
});
