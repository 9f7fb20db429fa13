import { describe, expect, it } from "vitest";
import type { BenchTable } from "./bench-row.js";
import { evaluateTarget } from "./bench-target.js";

const tables: BenchTable[] = [
  {
    id: "u",
    title: "uncontended",
    baseline: "floor",
    ratioOf: "ops/s",
    rows: [
      { scenario: "s", subject: "ours", metrics: { "ops/s": 900, "p50 ms": 2, "cpu µs": 31.5 } },
      { scenario: "s", subject: "floor", metrics: { "ops/s": 1_000, "cpu µs": 22 } },
      { scenario: "s", subject: "peer", metrics: { "ops/s": 800, "p50 ms": Number.NaN } },
      { scenario: "s", subject: "stuck peer", metrics: { "ops/s": 2, "p50 ms": 0.5, "stuck workers": 16 } },
    ],
  },
  { id: "w64", title: "w64", baseline: "ours", ratioOf: "cmds", rows: [{ scenario: "s", subject: "ours", metrics: { cmds: 5 } }] },
  { id: "w4", title: "w4", baseline: "ours", ratioOf: "cmds", rows: [{ scenario: "s", subject: "ours", metrics: { cmds: 4 } }] },
];
const ours = (table: string, metric: string) => ({ table, subject: "ours", metric });

describe("evaluateTarget", () => {
  it("reads a paired comparison from the round-by-round table of the value's own subject", () => {
    const pairedOf = (subject: string, id: string, ratio: number): BenchTable => ({
      id,
      title: id,
      pairedSubject: subject,
      rows: [{ scenario: "paired rounds", subject: "floor", metrics: { "ops/s ratio": ratio } }],
    });
    const withPaired = [...tables, pairedOf("ours", "u-paired", 0.95), pairedOf("other", "u-paired-2", 0.7)];
    const target = (subject: string) => ({
      claim: "≥ 0.9× floor",
      value: { table: "u", subject, metric: "ops/s" },
      versus: { subjects: ["floor"], paired: true },
      min: 0.9,
    });
    expect(evaluateTarget(target("ours"), withPaired)).toEqual({ claim: "≥ 0.9× floor", met: true, measured: "0.95× (vs floor, paired rounds)" });
    expect(evaluateTarget(target("other"), withPaired)).toEqual({ claim: "≥ 0.9× floor", met: false, measured: "0.70× (vs floor, paired rounds)" });
  });

  it("checks a ratio against another subject of the same table", () => {
    const outcome = evaluateTarget({ claim: "≥ 0.9× floor", value: ours("u", "ops/s"), versus: { subjects: ["floor"] }, min: 0.9 }, tables);
    expect(outcome).toEqual({ claim: "≥ 0.9× floor", met: true, measured: "0.90× (vs floor)" });
    expect(evaluateTarget({ claim: "≥ 1× floor", value: ours("u", "ops/s"), versus: { subjects: ["floor"] }, min: 1 }, tables).met).toBe(false);
  });

  it("needs every measurable peer ratio within bounds and skips a peer with no number", () => {
    const target = { claim: "p50 ≤ ½ peers", value: ours("u", "p50 ms"), versus: { subjects: ["peer", "floor"] }, max: 0.5 };
    expect(evaluateTarget(target, tables).met).toBeUndefined();
    expect(evaluateTarget({ ...target, value: ours("u", "ops/s"), max: 1.2 }, tables).met).toBe(true);
    expect(evaluateTarget({ ...target, value: ours("u", "ops/s"), max: 1 }, tables).met).toBe(false);
  });

  it("does not compare with a peer whose workers got stuck: its latency covers only the few acquisitions that got through", () => {
    const target = { claim: "p50 ≤ ½ peers", value: ours("u", "p50 ms"), versus: { subjects: ["stuck peer", "floor"] }, max: 0.5 };
    expect(evaluateTarget(target, tables)).toEqual({ claim: "p50 ≤ ½ peers", met: undefined, measured: "– (vs stuck peer: 16 workers stuck), – (vs floor)" });
    const againstBoth = { claim: "ops ≥ peers", value: ours("u", "ops/s"), versus: { subjects: ["stuck peer", "peer"] }, min: 1 };
    expect(evaluateTarget(againstBoth, tables)).toEqual({ claim: "ops ≥ peers", met: true, measured: "– (vs stuck peer: 16 workers stuck), 1.13× (vs peer)" });
  });

  it("compares the same subject across tables (flatness) and a plain value against bounds", () => {
    const flat = evaluateTarget({ claim: "flat", value: ours("w64", "cmds"), versus: { table: "w4" }, min: 0.75, max: 1.25 }, tables);
    expect(flat).toEqual({ claim: "flat", met: true, measured: "1.25× (vs ours, w4)" });
    expect(evaluateTarget({ claim: "≤ 4", value: ours("w64", "cmds"), max: 4 }, tables)).toEqual({ claim: "≤ 4", met: false, measured: "5" });
    expect(evaluateTarget({ claim: "missing", value: ours("nope", "cmds"), max: 4 }, tables).met).toBeUndefined();
  });

  it("subtracts instead of dividing when asked: what our subject adds over another", () => {
    const target = { claim: "cpu − floor ≤ 10", value: ours("u", "cpu µs"), versus: { subjects: ["floor"], by: "difference" as const }, max: 10 };
    expect(evaluateTarget(target, tables)).toEqual({ claim: "cpu − floor ≤ 10", met: true, measured: "+9.50 (vs floor)" });
    expect(evaluateTarget({ ...target, max: 9 }, tables).met).toBe(false);
    expect(evaluateTarget({ ...target, versus: { subjects: ["peer"], by: "difference" as const } }, tables)).toEqual({
      claim: "cpu − floor ≤ 10",
      met: undefined,
      measured: "– (vs peer)",
    });
  });
});
