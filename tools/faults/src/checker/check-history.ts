import { EVERYONE, type HistoryEvent, processOf } from "../history/history-event.js";
import { type CheckOptions, DEFAULT_CHECK_OPTIONS } from "./check-options.js";
import type { Violation } from "./violation.js";

/** Everything the history says about one acquisition. */
interface HoldRecord {
  readonly hold: string;
  readonly worker: string;
  readonly token: bigint;
  /** When the worker asked for the key (the grant, and so the token, came later). */
  readonly askedAt: number;
  readonly acquiredAt: number;
  validUntil: number;
  csStart?: number;
  csEnd?: number;
  lostAt?: number;
  releasedAt?: number;
}

interface Window {
  readonly from: number;
  readonly to: number;
  readonly scope: string;
}

const fmt = (at: number, origin: number): string => `+${(at - origin).toFixed(1)}ms`;

/**
 * Checks one key's history for the violations listed in {@link Violation}: mutual exclusion on the
 * holders' own validity deadlines, fencing on the resource's accepted writes, lost-lock signalling,
 * and liveness outside outages. Returns every violation found (an empty list for a clean history).
 */
export function checkHistory(events: readonly HistoryEvent[], options: CheckOptions = {}): Violation[] {
  const settings = { ...DEFAULT_CHECK_OPTIONS, ...options };
  if (events.length === 0) return [];
  const history = [...events].sort((a, b) => a.at - b.at);
  const origin = Math.min(...history.map((event) => event.at));
  const holds = collectHolds(history);
  return [
    ...findOverlaps(holds, settings.clockEpsilonMs, origin),
    ...findFencingViolations(history),
    ...findTokenOrderViolations(holds, settings.clockEpsilonMs),
    ...findUnsignalledLosses(history, holds, settings.clockEpsilonMs, origin),
    ...findStarvedWaiters(history, settings.livenessBoundMs, settings.outageGraceMs, origin),
  ];
}

function collectHolds(history: readonly HistoryEvent[]): Map<string, HoldRecord> {
  const holds = new Map<string, HoldRecord>();
  const askedAt = new Map<string, number>();
  const killedAt = new Map<string, number>();
  for (const event of history) {
    switch (event.type) {
      case "acquire-start":
        askedAt.set(event.worker, event.at);
        break;
      case "acquired":
        holds.set(event.hold, {
          hold: event.hold,
          worker: event.worker,
          token: BigInt(event.token),
          askedAt: askedAt.get(event.worker) ?? event.at,
          acquiredAt: event.at,
          validUntil: event.validUntil,
        });
        break;
      case "killed":
        killedAt.set(event.worker, event.at);
        break;
      default:
        if ("hold" in event) noteHoldEvent(holds.get(event.hold), event);
    }
  }
  // A killed holder stops believing anything when it dies.
  for (const record of holds.values()) {
    const killed = killedAt.get(processOf(record.worker));
    if (record.csEnd === undefined && killed !== undefined && killed >= record.acquiredAt) record.csEnd = killed;
  }
  return holds;
}

function noteHoldEvent(record: HoldRecord | undefined, event: HistoryEvent): void {
  if (record === undefined) return;
  if ("validUntil" in event) record.validUntil = Math.max(record.validUntil, event.validUntil);
  if (event.type === "cs-start") record.csStart = event.at;
  else if (event.type === "cs-end") record.csEnd = event.at;
  else if (event.type === "lost") record.lostAt ??= event.at;
  else if (event.type === "released") record.releasedAt = event.at;
}

/** The interval in which the holder ran its critical section and still believed it held the key. */
function believed(record: HoldRecord): { from: number; to: number } {
  const from = record.csStart ?? record.acquiredAt;
  const to = Math.min(record.csEnd ?? Number.POSITIVE_INFINITY, record.lostAt ?? Number.POSITIVE_INFINITY, record.validUntil);
  return { from, to };
}

function findOverlaps(holds: Map<string, HoldRecord>, epsilon: number, origin: number): Violation[] {
  const violations: Violation[] = [];
  const sorted = [...holds.values()].map((record) => ({ record, ...believed(record) })).sort((a, b) => a.from - b.from);
  let open: typeof sorted = [];
  for (const current of sorted) {
    open = open.filter((earlier) => earlier.to - epsilon > current.from);
    for (const earlier of open) {
      if (Math.min(earlier.to, current.to) - current.from <= epsilon) continue;
      violations.push({
        kind: "overlap",
        detail:
          `${earlier.record.hold} (token ${earlier.record.token}) believed it held the key until ${fmt(earlier.to, origin)} ` +
          `but ${current.record.hold} (token ${current.record.token}) entered its critical section at ${fmt(current.from, origin)}`,
      });
    }
    if (current.to > current.from) open.push(current);
  }
  return violations;
}

function findFencingViolations(history: readonly HistoryEvent[]): Violation[] {
  const violations: Violation[] = [];
  const accepted = history.flatMap((event) => (event.type === "write" && event.accepted ? [event] : [])).sort((a, b) => a.seq - b.seq);
  let highest: { token: bigint; hold: string; seq: number } | undefined;
  for (const write of accepted) {
    const token = BigInt(write.token);
    if (highest !== undefined && token < highest.token) {
      violations.push({
        kind: "token-regression",
        detail: `write #${write.seq} of ${write.hold} with token ${token} was accepted after write #${highest.seq} of ${highest.hold} with token ${highest.token}`,
      });
      continue;
    }
    if (highest !== undefined && token === highest.token && write.hold !== highest.hold) {
      violations.push({ kind: "token-reuse", detail: `${highest.hold} and ${write.hold} both wrote with token ${token} and both writes were accepted` });
    }
    highest = { token, hold: write.hold, seq: write.seq };
  }
  return violations;
}

function findTokenOrderViolations(holds: Map<string, HoldRecord>, epsilon: number): Violation[] {
  const violations: Violation[] = [];
  const released = [...holds.values()].filter((record) => record.releasedAt !== undefined).sort((a, b) => (a.releasedAt ?? 0) - (b.releasedAt ?? 0));
  const byAsk = [...holds.values()].sort((a, b) => a.askedAt - b.askedAt);
  let highest: HoldRecord | undefined;
  let next = 0;
  for (const later of byAsk) {
    for (; next < released.length && (released[next]?.releasedAt ?? 0) < later.askedAt - epsilon; next++) {
      const candidate = released[next] as HoldRecord;
      if (highest === undefined || candidate.token > highest.token) highest = candidate;
    }
    if (highest !== undefined && highest !== later && later.token <= highest.token) {
      violations.push({
        kind: "token-order",
        detail: `${later.hold} asked for the key after ${highest.hold} (token ${highest.token}) was released, yet got token ${later.token}`,
      });
    }
  }
  return violations;
}

function findUnsignalledLosses(history: readonly HistoryEvent[], holds: Map<string, HoldRecord>, epsilon: number, origin: number): Violation[] {
  const violations: Violation[] = [];
  for (const event of history) {
    if (event.type === "write" && !event.signalAborted && event.at > event.validUntil + epsilon) {
      violations.push({
        kind: "unsignalled-stale-write",
        detail: `${event.hold} wrote with token ${event.token} at ${fmt(event.at, origin)}, ${(event.at - event.validUntil).toFixed(1)}ms past its validity, and its signal had not aborted (write ${event.accepted ? "accepted" : "rejected"})`,
      });
    }
    if (event.type === "cs-end" && event.at > event.validUntil + epsilon) {
      const lostAt = holds.get(event.hold)?.lostAt;
      if (lostAt === undefined || lostAt > event.at + epsilon) {
        violations.push({
          kind: "unsignalled-loss",
          detail: `${event.hold} ended its critical section at ${fmt(event.at, origin)}, ${(event.at - event.validUntil).toFixed(1)}ms past its validity, without LOCK_LOST`,
        });
      }
    }
  }
  return violations;
}

function outageWindows(history: readonly HistoryEvent[], graceMs: number, end: number): Window[] {
  const windows: Window[] = [];
  const open = new Map<string, number>();
  for (const event of history) {
    if (!(event.type === "fault" || event.type === "fault-end") || !event.outage) continue;
    const id = `${event.fault}\u0000${event.scope}`;
    if (event.type === "fault") open.set(id, event.at);
    else {
      windows.push({ from: open.get(id) ?? event.at, to: event.at + graceMs, scope: event.scope });
      open.delete(id);
    }
  }
  for (const [id, from] of open) windows.push({ from, to: end, scope: id.split("\u0000")[1] as string });
  return windows;
}

/** Length of [from, to] not covered by any of the windows. */
function uncovered(from: number, to: number, windows: readonly Window[]): number {
  const cuts = windows
    .map((w) => ({ from: Math.max(from, w.from), to: Math.min(to, w.to) }))
    .filter((w) => w.to > w.from)
    .sort((a, b) => a.from - b.from);
  let covered = 0;
  let reach = from;
  for (const cut of cuts) {
    covered += Math.max(0, cut.to - Math.max(reach, cut.from));
    reach = Math.max(reach, cut.to);
  }
  return to - from - covered;
}

function findStarvedWaiters(history: readonly HistoryEvent[], boundMs: number, graceMs: number, origin: number): Violation[] {
  const end = Math.max(...history.map((event) => event.at));
  const windows = outageWindows(history, graceMs, end);
  const violations: Violation[] = [];
  const waitingSince = new Map<string, number>();
  const check = (worker: string, to: number, outcome: string) => {
    const from = waitingSince.get(worker);
    if (from === undefined) return;
    waitingSince.delete(worker);
    const mine = windows.filter((w) => w.scope === EVERYONE || w.scope === processOf(worker));
    const waited = uncovered(from, to, mine);
    if (waited > boundMs) {
      violations.push({
        kind: "starved-waiter",
        detail: `${worker} waited from ${fmt(from, origin)} to ${fmt(to, origin)} (${waited.toFixed(0)}ms outside outages, bound ${boundMs}ms) and ${outcome}`,
      });
    }
  };
  for (const event of history) {
    if (event.type === "acquire-start" && !waitingSince.has(event.worker)) waitingSince.set(event.worker, event.at);
    else if (event.type === "acquired") check(event.worker, event.at, "then got the key");
    else if (event.type === "worker-stopped") check(event.worker, event.at, "never got the key");
    else if (event.type === "killed") {
      for (const locker of [...waitingSince.keys()]) if (processOf(locker) === event.worker) check(locker, event.at, "never got the key");
    }
  }
  for (const worker of [...waitingSince.keys()]) check(worker, end, "still had not got the key when the run ended");
  return violations;
}
