import { describe, expect, it } from "vitest";
import { type BenchRow, bestPeer, runFailure } from "./bench-row.js";

const row = (subject: string, metrics: Record<string, number>): BenchRow => ({ scenario: "W=16", subject, metrics });
const PEERS = new Set(["fast but stuck", "slower", "slowest", "failing"]);

describe("bestPeer", () => {
  it("picks the peer with the lowest metric among those whose runs counted", () => {
    const rows = [
      row("ours", { "hand-off p50 ms": 0.1 }),
      row("fast but stuck", { "hand-off p50 ms": 0.2, "stuck workers": 16 }),
      row("failing", { "hand-off p50 ms": 0.3, errors: 4 }),
      row("slowest", { "hand-off p50 ms": 3 }),
      row("slower", { "hand-off p50 ms": 1 }),
    ];
    expect(bestPeer(rows, PEERS, "hand-off p50 ms", "lower")).toBe("slower");
  });

  it("picks the highest rate when higher is better, still skipping a peer whose workers got stuck", () => {
    const rows = [
      row("ours", { "acq/s": 900 }),
      row("fast but stuck", { "acq/s": 5_000, "stuck workers": 4 }),
      row("slower", { "acq/s": 300 }),
      row("slowest", { "acq/s": 100 }),
    ];
    expect(bestPeer(rows, PEERS, "acq/s", "higher")).toBe("slower");
  });

  it("falls back to the first row when no peer has a usable number", () => {
    const rows = [row("ours", { "hand-off p50 ms": 0.1 }), row("fast but stuck", { "hand-off p50 ms": 0.2, "stuck workers": 1 })];
    expect(bestPeer(rows, PEERS, "hand-off p50 ms", "lower")).toBe("ours");
  });
});

describe("runFailure", () => {
  it("names stuck workers first, then errors, and passes a clean run", () => {
    expect(runFailure(row("a", { "stuck workers": 2, errors: 1 }))).toBe("2 workers stuck");
    expect(runFailure(row("a", { errors: 3 }))).toBe("3 errors");
    expect(runFailure(row("a", { "acq/s": 100 }))).toBeUndefined();
  });
});
