import { describe, expect, it } from "vitest";
import { type Acquisition, contentionMetrics } from "./contention-metrics.js";

const window = { startAt: 1_000, endAt: 2_000 };

describe("contentionMetrics", () => {
  it("counts a hand-off only where the holder changes, from the previous release to the next grant", () => {
    const acquisitions: Acquisition[] = [
      ["a", 1_000, 1_010, 1_011],
      ["a", 1_011, 1_012, 1_013],
      ["b", 1_005, 1_015, 1_016],
      ["a", 1_016, 1_020, 1_021],
    ];
    const { granted, metrics } = contentionMetrics(acquisitions, window, ["a", "b"], true);
    expect(granted).toBe(4);
    // a→b: 1015 − 1013 = 2; b→a: 1020 − 1016 = 4 (a→a is no hand-off).
    expect(metrics["hand-off p50 ms"]).toBe(2);
    expect(metrics["hand-off p99 ms"]).toBe(4);
  });

  it("leaves out grants outside the window and counts a worker that never got the key as 0 in fairness", () => {
    const acquisitions: Acquisition[] = [
      ["a", 900, 950, 951],
      ["a", 1_000, 1_100, 1_101],
      ["b", 1_000, 1_200, 1_201],
      ["b", 1_900, 2_100, 2_101],
    ];
    const { granted, metrics } = contentionMetrics(acquisitions, window, ["a", "b", "c"], true);
    expect(granted).toBe(2);
    expect(metrics["acq/s"]).toBe(2);
    expect(metrics["fairness min/max"]).toBe(0);
    expect(metrics["wait p99 ms"]).toBe(200);
  });

  it("leads with acquisitions per second, the column a contended table starts with", () => {
    const { metrics } = contentionMetrics([["a", 1_000, 1_001, 1_002]], window, ["a"], true);
    expect(Object.keys(metrics)[0]).toBe("acq/s");
  });

  it("reports no hand-off latency when every process contends for a key of its own", () => {
    const { metrics } = contentionMetrics([["a", 1_000, 1_001, 1_002]], window, ["a"], false);
    expect(metrics["hand-off p50 ms"]).toBeUndefined();
    expect(metrics["fairness min/max"]).toBe(1);
  });
});
