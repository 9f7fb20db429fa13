import { describe, expect, it } from "vitest";
import type { BenchRow, BenchTable } from "./bench-row.js";
import { evaluateTarget } from "./bench-target.js";
import { sweepTargets } from "./sweep-targets.js";

const row = (subject: string, metrics: Record<string, number>): BenchRow => ({ scenario: "W=4", subject, metrics });
const table = (rows: BenchRow[]): BenchTable => ({ id: "x-contended-w4", title: "W=4", baseline: "ours", ratioOf: "acq/s", rows });
const spec = { id: "x", subject: "ours", peers: ["fast", "steady"], workerCounts: [4], waitP99: true };

describe("sweepTargets", () => {
  it("asks at every W for acquisitions/s, fairness and, when asked, wait p99", () => {
    expect(sweepTargets({ ...spec, workerCounts: [4, 64], waitP99: false }).map((target) => target.claim)).toEqual([
      "W=4: acquisitions/s ≥ 1.0× the better peer that did not get stuck",
      "W=4: fairness min/max ≥ 0.5",
      "W=64: acquisitions/s ≥ 1.0× the better peer that did not get stuck",
      "W=64: fairness min/max ≥ 0.5",
    ]);
    expect(sweepTargets(spec).map((target) => target.claim)).toContain("W=4: wait p99 ≤ the better peer's");
  });

  it("compares with the better peer that did not get stuck, however fast the stuck one looked", () => {
    const tables = [
      table([
        row("ours", { "acq/s": 900, "wait p99 ms": 20, "fairness min/max": 0.8 }),
        row("fast", { "acq/s": 5_000, "wait p99 ms": 1, "fairness min/max": 0, "stuck workers": 3 }),
        row("steady", { "acq/s": 600, "wait p99 ms": 25, "fairness min/max": 0.2 }),
      ]),
    ];
    expect(sweepTargets(spec).map((target) => evaluateTarget(target, tables))).toEqual([
      { claim: "W=4: acquisitions/s ≥ 1.0× the better peer that did not get stuck", met: true, measured: "– (vs fast: 3 workers stuck), 1.50× (vs steady)" },
      { claim: "W=4: fairness min/max ≥ 0.5", met: true, measured: "0.80" },
      { claim: "W=4: wait p99 ≤ the better peer's", met: true, measured: "– (vs fast: 3 workers stuck), 0.80× (vs steady)" },
    ]);
  });

  it("fails where distlock falls behind the better of two working peers", () => {
    const tables = [
      table([
        row("ours", { "acq/s": 900, "wait p99 ms": 20, "fairness min/max": 0.4 }),
        row("fast", { "acq/s": 1_000, "wait p99 ms": 10 }),
        row("steady", { "acq/s": 600, "wait p99 ms": 25 }),
      ]),
    ];
    expect(sweepTargets(spec).map((target) => evaluateTarget(target, tables).met)).toEqual([false, false, false]);
  });

  it("asks for a multiple of the better peer and, at the W named, no more client CPU per acquisition", () => {
    const twice = { ...spec, waitP99: false, minRatio: 2, clientCpuAt: [4] };
    expect(sweepTargets(twice).map((target) => target.claim)).toEqual([
      "W=4: acquisitions/s ≥ 2.0× the better peer that did not get stuck",
      "W=4: fairness min/max ≥ 0.5",
      "W=4: client CPU per acquisition ≤ the better peer's",
    ]);
    const tables = [
      table([
        row("ours", { "acq/s": 1_900, "fairness min/max": 0.9, "client CPU µs/acq": 100 }),
        row("fast", { "acq/s": 1_000, "client CPU µs/acq": 90 }),
        row("steady", { "acq/s": 600, "client CPU µs/acq": 150 }),
      ]),
    ];
    expect(sweepTargets(twice).map((target) => evaluateTarget(target, tables).met)).toEqual([false, true, false]);
  });
});
