import { describe, expect, it } from "vitest";
import { clientCpuPerOp, median, summarizeTurns, type TurnSample } from "./turn-summary.js";

const turn = (ops: number[], seconds: number, perOp: Record<string, number> = {}, acquires: number[] = []): TurnSample => ({ ops, acquires, seconds, perOp });

describe("median", () => {
  it("is the middle value, the mean of the middle two for an even count, NaN without values", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("summarizeTurns", () => {
  it("reports the median turn's ops/s, p50 and per-op columns, so one turn spoiled by outside load does not move them", () => {
    const turns = [
      turn([1, 1, 1, 1], 0.004, { "client user µs/op": 20, "server µs/op": 5 }),
      turn([1, 2, 2, 2], 0.008, { "client user µs/op": 30, "server µs/op": 6 }),
      turn([9, 9, 9, 9], 0.04, { "client user µs/op": 400, "server µs/op": 7 }),
    ];
    expect(summarizeTurns(turns, false)).toEqual({
      "ops/s": 500,
      "p50 µs": 2_000,
      "p99 µs": 9_000,
      "client user µs/op": 30,
      "server µs/op": 6,
    });
  });

  it("takes p99 over every sample of every turn, not the median of the turns' p99s", () => {
    const turns = [turn([1, 1], 1, {}, [1, 1]), turn([1, 1], 1, {}, [1, 1]), turn([1, 50], 1, {}, [1, 40])];
    const metrics = summarizeTurns(turns, true);
    expect(metrics["p99 µs"]).toBe(50_000);
    expect(metrics["acquire p99 µs"]).toBe(40_000);
    expect(metrics["acquire p50 µs"]).toBe(1_000);
  });

  it("leaves out acquire latency unless asked, and takes a column's median over the turns that measured it", () => {
    const metrics = summarizeTurns([turn([1], 1, { "requests/op": 2 }), turn([1], 1, {}), turn([1], 1, { "requests/op": 4 })], false);
    expect(metrics["acquire p50 µs"]).toBeUndefined();
    expect(metrics["requests/op"]).toBe(3);
  });
});

describe("clientCpuPerOp", () => {
  it("splits a cpuUsage difference into user, system and both per operation", () => {
    expect(clientCpuPerOp({ user: 3_000, system: 1_000 }, 100)).toEqual({ "client user µs/op": 30, "client sys µs/op": 10, "client CPU µs/op": 40 });
  });
});
