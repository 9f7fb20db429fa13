import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../history/history-event.js";
import { checkMultiKeyHistory } from "./check-multi-key.js";
import { longestHeldAfterDeath } from "./held-after-death.js";

const KEYS = ["a", "b", "c"];
const OPTIONS = { keys: KEYS, deadHolderBoundMs: 2_000 };

/**
 * A multi-key hold of `tokens` (key → token) asked for at `from - 5`, acquired at `from`, writing every key at both ends
 * of its critical section (with `seq` = 2 × token - 1 and 2 × token, each key's resource numbering its own writes) and
 * released at `to`.
 */
function setHold(worker: string, n: number, tokens: Record<string, number>, from: number, to: number, validUntil = from + 1_000): HistoryEvent[] {
  const hold = `${worker}#${n}`;
  const keys = Object.keys(tokens);
  const writes = (at: number, second: boolean): HistoryEvent[] =>
    Object.entries(tokens).map(([key, token]) => {
      const seq = second ? 2 * token : 2 * token - 1;
      return { type: "write", worker, at, hold, key, token: String(token), signalAborted: false, validUntil, accepted: true, seq };
    });
  return [
    { type: "acquire-start", worker, at: from - 5, keys },
    ...Object.entries(tokens).map(([key, token]): HistoryEvent => ({ type: "acquired", worker, at: from, hold, key, token: String(token), validUntil })),
    { type: "cs-start", worker, at: from + 1, hold },
    ...writes(from + 2, false),
    ...writes(to - 2, true),
    { type: "cs-end", worker, at: to - 1, hold, validUntil },
    { type: "released", worker, at: to, hold },
  ];
}

const kinds = (history: HistoryEvent[]) => checkMultiKeyHistory(history, OPTIONS).map((violation) => violation.kind);

describe("checkMultiKeyHistory", () => {
  it("passes sets that share a key one after the other, and disjoint sets held at once", () => {
    const history = [...setHold("p", 0, { a: 1, b: 1 }, 0, 100), ...setHold("q", 0, { c: 1 }, 10, 90), ...setHold("q", 1, { b: 2, c: 2 }, 120, 200)];
    expect(checkMultiKeyHistory(history, OPTIONS)).toEqual([]);
  });

  it("detects two sets believed held at once that share a key, naming that key only", () => {
    const history = [...setHold("p", 0, { a: 1, b: 1 }, 0, 100), ...setHold("q", 0, { b: 2, c: 1 }, 50, 150)];
    const found = checkMultiKeyHistory(history, OPTIONS);
    expect(found.map((violation) => violation.kind)).toContain("overlap");
    expect(found.every((violation) => violation.detail.startsWith("key b: "))).toBe(true);
  });

  it("ends every key's belief when the set's signal aborts", () => {
    const lost: HistoryEvent = { type: "lost", worker: "p", at: 40, hold: "p#0", code: "LOCK_LOST" };
    const held = setHold("p", 0, { a: 1, b: 1 }, 0, 300).filter((event) => event.type !== "write");
    expect(checkMultiKeyHistory([...held, lost, ...setHold("q", 0, { a: 2, b: 2 }, 100, 200)], OPTIONS)).toEqual([]);
  });

  it("detects a key's resource accepting a lower token after a higher one", () => {
    // q's writes reach a's resource after p's (larger seq), with a lower token.
    const later = setHold("q", 0, { a: 1 }, 120, 200).map((event) => (event.type === "write" ? { ...event, seq: event.seq + 10 } : event));
    expect(kinds([...setHold("p", 0, { a: 2, b: 1 }, 0, 100), ...later])).toContain("token-regression");
  });

  it("counts a waiter for a set that never got it once, not once per key", () => {
    const history: HistoryEvent[] = [
      { type: "acquire-start", worker: "w", at: 0, keys: ["a", "b", "c"] },
      { type: "worker-stopped", worker: "w", at: 12_000 },
    ];
    expect(kinds(history)).toEqual(["starved-waiter"]);
  });

  it("detects a key the server showed held by a killed process longer than the bound, or still when the probe gave up", () => {
    const probe = (keys: { key: string; freedAt: number | null }[]): HistoryEvent => ({ type: "dead-holder-keys", at: 1_000, worker: "p", keys });
    expect(kinds([probe([{ key: "a", freedAt: 2_900 }])])).toEqual([]);
    expect(
      kinds([
        probe([
          { key: "a", freedAt: 2_900 },
          { key: "b", freedAt: 3_100 },
        ]),
      ]),
    ).toEqual(["held-after-death"]);
    expect(kinds([probe([{ key: "a", freedAt: null }])])).toEqual(["held-after-death"]);
    expect(
      longestHeldAfterDeath([
        probe([
          { key: "a", freedAt: 2_900 },
          { key: "b", freedAt: 1_500 },
        ]),
      ]),
    ).toBe(1_900);
  });
});
