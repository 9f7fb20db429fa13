import { describe, expect, it } from "vitest";
import { EVERYONE, type HistoryEvent } from "../history/history-event.js";
import { checkHistory, peakPermitsHeld } from "./check-history.js";

/** A hold that acquires at `from`, writes at both ends, and releases at `to`, valid until `validUntil`. */
function hold(worker: string, n: number, token: number, from: number, to: number, extra: { validUntil?: number; seq?: [number, number] } = {}): HistoryEvent[] {
  const id = `${worker}#${n}`;
  const validUntil = extra.validUntil ?? from + 1_000;
  const [first, second] = extra.seq ?? [2 * token - 1, 2 * token];
  const write = (at: number, seq: number): HistoryEvent => ({
    type: "write",
    worker,
    at,
    hold: id,
    token: String(token),
    signalAborted: false,
    validUntil,
    accepted: true,
    seq,
  });
  return [
    { type: "acquire-start", worker, at: from - 5 },
    { type: "acquired", worker, at: from, hold: id, token: String(token), validUntil },
    { type: "cs-start", worker, at: from + 1, hold: id },
    write(from + 2, first),
    write(to - 2, second),
    { type: "cs-end", worker, at: to - 1, hold: id, validUntil },
    { type: "released", worker, at: to, hold: id },
  ];
}

const kinds = (history: HistoryEvent[]) => checkHistory(history).map((violation) => violation.kind);

/**
 * A semaphore grant of `count` permits asked for at `from - 5`, acquired at `from`, acting at both ends of its critical
 * section and released at `to`, valid until `validUntil`.
 */
function grant(worker: string, n: number, token: number, count: number, from: number, to: number, validUntil = from + 1_000): HistoryEvent[] {
  const hold = `${worker}#${n}`;
  const act = (at: number): HistoryEvent => ({ type: "act", worker, at, hold, token: String(token), validUntil });
  return [
    { type: "acquire-start", worker, at: from - 5 },
    { type: "acquired", worker, at: from, hold, token: String(token), validUntil, count },
    { type: "cs-start", worker, at: from + 1, hold },
    act(from + 2),
    act(to - 2),
    { type: "cs-end", worker, at: to - 1, hold, validUntil },
    { type: "released", worker, at: to, hold },
  ];
}

const THREE_PERMITS = { semaphore: { permits: 3 } };
const semaphoreKinds = (history: HistoryEvent[], permits = 3) => checkHistory(history, { semaphore: { permits } }).map((violation) => violation.kind);

describe("checkHistory", () => {
  it("passes a clean history of successive holders", () => {
    expect(checkHistory([...hold("a", 0, 1, 0, 100), ...hold("b", 0, 2, 120, 200), ...hold("a", 1, 3, 220, 300)])).toEqual([]);
  });

  it("passes an empty history", () => {
    expect(checkHistory([])).toEqual([]);
  });

  it("detects two critical sections that overlap while both holders were valid", () => {
    expect(kinds([...hold("a", 0, 1, 0, 100, { seq: [1, 3] }), ...hold("b", 0, 2, 50, 150, { seq: [2, 4] })])).toContain("overlap");
  });

  it("does not count time after a holder's validity deadline as held", () => {
    const stale = hold("a", 0, 1, 0, 400, { validUntil: 100 }).filter((event) => event.type !== "write" && event.type !== "cs-end");
    const lost: HistoryEvent = { type: "lost", worker: "a", at: 100, hold: "a#0", code: "LOCK_LOST" };
    const history = [...stale, lost, { type: "cs-end", worker: "a", at: 399, hold: "a#0", validUntil: 100 } as const, ...hold("b", 0, 2, 150, 250)];
    expect(checkHistory(history)).toEqual([]);
  });

  it("does not count time after a LOCK_LOST signal as held", () => {
    const history: HistoryEvent[] = [
      ...hold("a", 0, 1, 0, 400).filter((event) => event.type !== "write"),
      { type: "lost", worker: "a", at: 90, hold: "a#0", code: "LOCK_LOST" },
      ...hold("b", 0, 2, 150, 250),
    ];
    expect(checkHistory(history)).toEqual([]);
  });

  it("detects a write accepted with a lower token than one accepted before", () => {
    expect(kinds([...hold("a", 0, 2, 0, 100, { seq: [1, 2] }), ...hold("b", 0, 1, 120, 200, { seq: [3, 4] })])).toContain("token-regression");
  });

  it("detects two holds whose writes were both accepted with the same token", () => {
    expect(kinds([...hold("a", 0, 1, 0, 100, { seq: [1, 2] }), ...hold("b", 0, 1, 120, 200, { seq: [3, 4] })])).toContain("token-reuse");
  });

  it("detects a hold acquired after a release that got no larger token", () => {
    const history = [...hold("a", 0, 5, 0, 100), ...hold("b", 0, 4, 120, 200)].filter((event) => event.type !== "write");
    expect(kinds(history)).toEqual(["token-order"]);
  });

  it("detects a write past the validity deadline while the signal had not aborted", () => {
    const history: HistoryEvent[] = [
      ...hold("a", 0, 1, 0, 100),
      { type: "write", worker: "a", at: 1_500, hold: "a#0", token: "1", signalAborted: false, validUntil: 1_000, accepted: false, seq: 0 },
    ];
    expect(kinds(history)).toEqual(["unsignalled-stale-write"]);
  });

  it("accepts a stale write whose signal had already aborted", () => {
    const history: HistoryEvent[] = [
      ...hold("a", 0, 1, 0, 100),
      { type: "write", worker: "a", at: 1_500, hold: "a#0", token: "1", signalAborted: true, validUntil: 1_000, accepted: false, seq: 0 },
    ];
    expect(checkHistory(history)).toEqual([]);
  });

  it("detects a critical section that ran past its validity without LOCK_LOST", () => {
    const history = hold("a", 0, 1, 0, 1_500, { validUntil: 1_000 }).filter((event) => event.type !== "write");
    expect(kinds(history)).toEqual(["unsignalled-loss"]);
  });

  it("accepts a critical section past its validity once LOCK_LOST was signalled", () => {
    const history: HistoryEvent[] = [
      ...hold("a", 0, 1, 0, 1_500, { validUntil: 1_000 }).filter((event) => event.type !== "write"),
      { type: "lost", worker: "a", at: 1_001, hold: "a#0", code: "LOCK_LOST" },
    ];
    expect(checkHistory(history)).toEqual([]);
  });

  it("detects a waiter that went without the key longer than the bound while the backend was up", () => {
    const history: HistoryEvent[] = [
      { type: "acquire-start", worker: "w", at: 0 },
      { type: "acquire-failed", worker: "w", at: 5_000, code: "LOCK_TIMEOUT" },
      { type: "acquire-start", worker: "w", at: 5_010 },
      { type: "worker-stopped", worker: "w", at: 12_000 },
    ];
    expect(kinds(history)).toEqual(["starved-waiter"]);
  });

  it("does not count outages (and their grace) against a waiter", () => {
    const history: HistoryEvent[] = [
      { type: "acquire-start", worker: "w", at: 0 },
      { type: "fault", at: 1_000, fault: "server-restart", outage: true, scope: EVERYONE },
      { type: "fault-end", at: 6_000, fault: "server-restart", outage: true, scope: EVERYONE },
      { type: "acquired", worker: "w", at: 10_000, hold: "w#0", token: "1", validUntil: 13_000 },
    ];
    expect(checkHistory(history, { livenessBoundMs: 5_000, outageGraceMs: 1_000 })).toEqual([]);
    expect(kinds(history.filter((event) => event.type !== "fault-end"))).toEqual([]);
  });

  it("counts an outage of another worker against this one", () => {
    const history: HistoryEvent[] = [
      { type: "acquire-start", worker: "w", at: 0 },
      { type: "fault", at: 1_000, fault: "network-cut", outage: true, scope: "other" },
      { type: "fault-end", at: 6_000, fault: "network-cut", outage: true, scope: "other" },
      { type: "acquired", worker: "w", at: 12_000, hold: "w#0", token: "1", validUntil: 13_000 },
    ];
    expect(kinds(history)).toEqual(["starved-waiter"]);
  });

  it("ends a killed holder's critical section when it died", () => {
    const history: HistoryEvent[] = [
      ...hold("a", 0, 1, 0, 100).filter((event) => event.type !== "cs-end" && event.type !== "released"),
      { type: "killed", worker: "a", at: 60 },
      ...hold("b", 0, 2, 80, 200),
    ];
    expect(checkHistory(history)).toEqual([]);
  });

  it("applies a kill and a process's own outage to every locker of that process, and only to them", () => {
    const history: HistoryEvent[] = [
      ...hold("a/1", 0, 1, 0, 100).filter((event) => event.type !== "cs-end" && event.type !== "released"),
      { type: "acquire-start", worker: "a", at: 10 },
      { type: "acquire-start", worker: "c", at: 10 },
      { type: "fault", at: 20, fault: "network-cut", outage: true, scope: "a" },
      { type: "killed", worker: "a", at: 60 },
      ...hold("b", 0, 2, 80, 200),
      { type: "fault-end", at: 15_000, fault: "network-cut", outage: true, scope: "a" },
      { type: "acquired", worker: "c", at: 15_000, hold: "c#0", token: "3", validUntil: 16_000 },
    ];
    // a/1's hold ends when its process dies (no overlap with b), a's wait ends there too; c waited through a's outage.
    expect(checkHistory(history).map((violation) => [violation.kind, violation.detail.split(" ")[0]])).toEqual([["starved-waiter", "c"]]);
  });
});

describe("checkHistory of a counting semaphore", () => {
  it("passes grants of 1 and 2 permits that fill a 3-permit semaphore, and counts 3 held at once", () => {
    const history = [...grant("a", 0, 1, 1, 0, 100), ...grant("b", 0, 2, 2, 10, 90), ...grant("c", 0, 3, 1, 120, 200), ...grant("d", 0, 4, 2, 130, 210)];
    expect(checkHistory(history, THREE_PERMITS)).toEqual([]);
    expect(peakPermitsHeld(history)).toBe(3);
  });

  it("detects 4 permits believed held at once on a 3-permit semaphore, counting each grant's count", () => {
    const history = [...grant("a", 0, 1, 2, 0, 100), ...grant("b", 0, 2, 2, 50, 150)];
    expect(semaphoreKinds(history)).toEqual(["overlap"]);
    expect(semaphoreKinds(history, 4)).toEqual([]);
  });

  it("counts only the beliefs that coincide: 2 + 1 and then 1 + 2 permits, never 5", () => {
    const history = [...grant("a", 0, 1, 2, 0, 100), ...grant("b", 0, 2, 1, 50, 150), ...grant("c", 0, 3, 2, 120, 200)];
    expect(checkHistory(history, THREE_PERMITS)).toEqual([]);
    expect(peakPermitsHeld(history)).toBe(3);
  });

  it("does not count a paused holder's permits past its deadline and LOCK_LOST, when others took them", () => {
    const paused = grant("a", 0, 1, 2, 0, 2_000, 1_000).filter((event) => event.type !== "act" && event.type !== "cs-end" && event.type !== "released");
    const history: HistoryEvent[] = [
      ...paused,
      { type: "act", worker: "a", at: 2, hold: "a#0", token: "1", validUntil: 1_000 },
      ...grant("b", 0, 2, 2, 1_100, 1_300),
      ...grant("c", 0, 3, 1, 1_150, 1_350),
      { type: "lost", worker: "a", at: 1_900, hold: "a#0", code: "LOCK_LOST" },
      { type: "cs-end", worker: "a", at: 1_901, hold: "a#0", validUntil: 1_000 },
    ];
    expect(checkHistory(history, THREE_PERMITS)).toEqual([]);
  });

  it("detects an act after the holder's signal told it that its permits were lost", () => {
    const history: HistoryEvent[] = [...grant("a", 0, 1, 1, 0, 100), { type: "lost", worker: "a", at: 40, hold: "a#0", code: "LOCK_LOST" }];
    expect(semaphoreKinds(history)).toEqual(["act-after-loss"]);
  });

  it("detects an act past the permit's validity (its signal had not aborted, or it would not have acted)", () => {
    expect(semaphoreKinds(grant("a", 0, 1, 1, 0, 1_500))).toEqual(["unsignalled-stale-write", "unsignalled-loss"]);
  });

  it("detects two grants, concurrent ones too, that got the same token", () => {
    expect(semaphoreKinds([...grant("a", 0, 7, 1, 0, 100), ...grant("b", 0, 7, 1, 0, 100)])).toEqual(["token-reuse"]);
  });

  it("detects a grant asked for after another was acquired that got a smaller token, and lets concurrent asks be granted in any order", () => {
    // b asked at 45, after a was granted at 0 and while a still held: b's token must be larger than a's.
    expect(semaphoreKinds([...grant("a", 0, 5, 1, 0, 100), ...grant("b", 0, 4, 1, 50, 150)])).toEqual(["token-order"]);
    // Both asked at -5, before either was granted: the server may grant them in either order.
    expect(semaphoreKinds([...grant("a", 0, 5, 1, 0, 100), ...grant("b", 0, 4, 1, 1, 150)])).toEqual([]);
  });

  it("ends a killed holder's beliefs when its process dies, freeing its permits for the count", () => {
    const killed = grant("a/1", 0, 1, 3, 0, 500).filter((event) => !["act", "cs-end", "released"].includes(event.type));
    const history = [...killed, { type: "killed", worker: "a", at: 60 } as const, ...grant("b", 0, 2, 3, 80, 200)];
    expect(checkHistory(history, THREE_PERMITS)).toEqual([]);
  });
});
