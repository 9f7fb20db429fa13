import { EVERYONE, type HistoryEvent, processOf } from "../history/history-event.js";
import { sinceOrigin } from "./hold-records.js";
import type { Violation } from "./violation.js";

interface Window {
  readonly from: number;
  readonly to: number;
  readonly scope: string;
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

/** Waiters that went without the key longer than `boundMs`, not counting outages (and `graceMs` after each) that hit them. */
export function findStarvedWaiters(history: readonly HistoryEvent[], boundMs: number, graceMs: number, origin: number): Violation[] {
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
        detail: `${worker} waited from ${sinceOrigin(from, origin)} to ${sinceOrigin(to, origin)} (${waited.toFixed(0)}ms outside outages, bound ${boundMs}ms) and ${outcome}`,
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
