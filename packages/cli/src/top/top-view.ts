import type { LockState } from "@distlock/core";
import { formatTable } from "../output.js";

/** One refresh of `distlock top`: what the backend showed (or why it could not), and when. */
export interface TopSnapshot {
  readonly backend: string;
  readonly prefix: string;
  /** Wall-clock time of the read, for the header only. */
  readonly at: Date;
  /** The keys shown, in key order; the previous read's while `error` is set. */
  readonly states: readonly LockState[];
  /** True when the backend held more keys under the prefix than `--limit`. */
  readonly truncated: boolean;
  /** The last read's failure, shown instead of crashing; the next refresh tries again. */
  readonly error?: string | undefined;
}

/** Where the view is drawn: its size, and whether it refreshes. */
export interface TopFrame {
  readonly columns: number;
  readonly rows: number;
  readonly intervalMs?: number | undefined;
}

const HEADER = ["KEY", "HOLDER", "TOKEN", "TTL LEFT", "COUNT", "WAITERS"];

/** The screen of one snapshot as lines no wider than the frame, at most `frame.rows` of them. */
export function renderTop(snapshot: TopSnapshot, frame: TopFrame): string[] {
  const count = `${snapshot.states.length}${snapshot.truncated ? "+" : ""} ${snapshot.states.length === 1 && !snapshot.truncated ? "key" : "keys"}`;
  const refresh = frame.intervalMs === undefined ? "" : `  every ${formatSeconds(frame.intervalMs)}  q to quit`;
  const lines = [
    `distlock top  backend ${snapshot.backend}  prefix ${prefixLabel(snapshot.prefix)}  ${clock(snapshot.at)}  ${count}${refresh}`,
    snapshot.error === undefined ? "" : `error: ${snapshot.error} (retrying)`,
  ];
  if (snapshot.states.length === 0) {
    lines.push(snapshot.prefix === "" ? "No lock is held on this backend." : `No lock is held under ${prefixLabel(snapshot.prefix)}.`);
    return fit(lines, frame);
  }
  const table = formatTable(HEADER, snapshot.states.map(stateRow)).split("\n");
  const room = Math.max(1, frame.rows - lines.length - 1);
  const hidden = table.length - room;
  lines.push(...(hidden > 0 ? table.slice(0, room) : table));
  if (hidden > 0) lines.push(`… ${hidden} more not shown (enlarge the terminal)`);
  else if (snapshot.truncated) lines.push(`… more keys than --limit ${snapshot.states.length}`);
  return fit(lines, frame);
}

/** Quoted, so an empty prefix or one ending in a space reads unambiguously. */
function prefixLabel(prefix: string): string {
  return prefix === "" ? "(all keys)" : JSON.stringify(prefix);
}

function stateRow(state: LockState): string[] {
  return [state.key, state.holder, String(state.fencingToken ?? "-"), formatSeconds(state.ttlRemainingMs), String(state.holdCount), String(state.waiters)];
}

function formatSeconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}s` : "none";
}

function clock(at: Date): string {
  return `${at.toISOString().slice(11, 19)} UTC`;
}

function fit(lines: string[], frame: TopFrame): string[] {
  return lines.slice(0, frame.rows).map((line) => (line.length > frame.columns ? `${line.slice(0, Math.max(0, frame.columns - 1))}…` : line));
}
