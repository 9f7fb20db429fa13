import type { LockState } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { renderTop, type TopSnapshot } from "./top-view.js";

const AT = new Date("2026-11-24T10:41:05.123Z");

function state(key: string, overrides: Partial<LockState> = {}): LockState {
  return { key, holder: "host:1:worker", holdCount: 1, fencingToken: 7n, ttlRemainingMs: 28_849, waiters: 0, ...overrides };
}

function snapshot(states: LockState[], overrides: Partial<TopSnapshot> = {}): TopSnapshot {
  return { backend: "redis", prefix: "jobs:", at: AT, states, truncated: false, ...overrides };
}

describe("renderTop", () => {
  it("shows a header with backend, prefix, time and key count, then one row per key", () => {
    const lines = renderTop(snapshot([state("jobs:a", { holdCount: 2, waiters: 3 }), state("jobs:b", { fencingToken: null, ttlRemainingMs: Infinity })]), {
      columns: 200,
      rows: 20,
      intervalMs: 1000,
    });
    expect(lines[0]).toBe('distlock top  backend redis  prefix "jobs:"  10:41:05 UTC  2 keys  every 1.0s  q to quit');
    expect(lines.slice(2).map((line) => line.split(/\s+/))).toEqual([
      ["KEY", "HOLDER", "TOKEN", "TTL", "LEFT", "COUNT", "WAITERS"],
      ["jobs:a", "host:1:worker", "7", "28.8s", "2", "3"],
      ["jobs:b", "host:1:worker", "-", "none", "1", "0"],
    ]);
  });

  it("says when nothing is held, under a prefix or at all", () => {
    expect(renderTop(snapshot([]), { columns: 80, rows: 10 })).toContain('No lock is held under "jobs:".');
    expect(renderTop(snapshot([], { prefix: "" }), { columns: 80, rows: 10 })).toContain("No lock is held on this backend.");
  });

  it("keeps within the frame: rows that do not fit are counted, long lines are cut", () => {
    const states = Array.from({ length: 10 }, (_, i) => state(`jobs:${i}`));
    const lines = renderTop(snapshot(states), { columns: 30, rows: 6 });
    expect(lines).toHaveLength(6);
    expect(lines.every((line) => line.length <= 30)).toBe(true);
    expect(lines.at(-1)).toBe("… 8 more not shown (enlarge t…");
  });

  it("shows a backend error over the last rows, and marks a read cut at --limit", () => {
    const lines = renderTop(snapshot([state("jobs:a")], { error: "BACKEND_UNAVAILABLE: list failed", truncated: true }), { columns: 200, rows: 20 });
    expect(lines[0]).toContain("1+ keys");
    expect(lines[1]).toBe("error: BACKEND_UNAVAILABLE: list failed (retrying)");
    expect(lines.at(-1)).toBe("… more keys than --limit 1");
  });
});
