import { describe, expect, it } from "vitest";
import type { BenchTable } from "./bench-row.js";
import { evaluateTarget } from "./bench-target.js";
import { pairedRoundsTable } from "./paired-rounds.js";
import type { TurnSample } from "./turn-summary.js";

/** A turn of `ops` operations in `seconds`, costing `cpu` µs of client CPU per op, each taking `latency`. */
const turn = (ops: number, seconds: number, cpu: number, latency = 0.1): TurnSample => ({
  ops: Array.from({ length: ops }, () => latency),
  acquires: [],
  seconds,
  perOp: { "client CPU µs/op": cpu },
});

describe("pairedRoundsTable", () => {
  // Round 2 is a slow burst for both subjects; round 3 only for "ours": the medians of the pairs ignore both.
  const turns = new Map<string, TurnSample[]>([
    ["ours", [turn(100, 1, 60), turn(100, 2, 130), turn(100, 4, 200), turn(100, 1, 62), turn(100, 1, 61)]],
    ["replay", [turn(100, 1, 55), turn(100, 2, 124), turn(100, 1, 56), turn(110, 1, 57), turn(110, 1, 55)]],
  ]);
  const table = pairedRoundsTable({ id: "u", title: "uncontended" }, "ours", turns);

  it("compares the subject with each other one in the same rounds: the median of the per-round ratios and differences", () => {
    expect(table.id).toBe("u-paired");
    expect(table.rows).toEqual([
      {
        scenario: "paired rounds",
        subject: "replay",
        metrics: { "ops/s ratio": 100 / 110, "p50 µs ratio": 1, "p99 µs ratio": 1, "client CPU µs/op difference": 6 },
      },
    ]);
  });

  it("compares each turn's p50 with the other subject's in the same round", () => {
    // Rounds 1 and 2 are slow for both; the per-round p50 ratios are 1.05, 1.04 and 1.5: their median is 1.05.
    const latencies = new Map<string, TurnSample[]>([
      ["ours", [turn(10, 1, 0, 0.105), turn(10, 1, 0, 0.208), turn(10, 1, 0, 0.3)]],
      ["none", [turn(10, 1, 0, 0.1), turn(10, 1, 0, 0.2), turn(10, 1, 0, 0.2)]],
    ]);
    const paired = pairedRoundsTable({ id: "o", title: "observability" }, "ours", latencies);
    expect(paired.rows[0]?.metrics["p50 µs ratio"]).toBeCloseTo(1.05, 10);
  });

  it("is what a paired target reads instead of the rows' medians", () => {
    const main: BenchTable = {
      id: "u",
      title: "uncontended",
      rows: [
        { scenario: "s", subject: "ours", metrics: { "client CPU µs/op": 62, "ops/s": 100 } },
        { scenario: "s", subject: "replay", metrics: { "client CPU µs/op": 56, "ops/s": 110 } },
      ],
    };
    const difference = { claim: "≤ 5 µs over replay", value: { table: "u", subject: "ours", metric: "client CPU µs/op" }, max: 5 };
    expect(evaluateTarget({ ...difference, versus: { subjects: ["replay"], by: "difference", paired: true } }, [main, table])).toEqual({
      claim: "≤ 5 µs over replay",
      met: false,
      measured: "+6 (vs replay, paired rounds)",
    });
    const ratio = { claim: "≥ 0.9× replay", value: { table: "u", subject: "ours", metric: "ops/s" }, min: 0.9, versus: { subjects: ["replay"], paired: true } };
    expect(evaluateTarget(ratio, [main, table])).toEqual({ claim: "≥ 0.9× replay", met: true, measured: "0.91× (vs replay, paired rounds)" });
  });
});
