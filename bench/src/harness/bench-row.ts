import type { BenchScale } from "./bench-scale.js";
import type { BenchTarget } from "./bench-target.js";

/** One measured subject in one scenario. */
export interface BenchRow {
  /** e.g. "uncontended acquire+release". */
  readonly scenario: string;
  /** e.g. "distlock", "raw ioredis floor". */
  readonly subject: string;
  /** Measured values by column name, e.g. { "ops/s": 9800 }. */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * Why a row's run does not count as a measurement (workers stuck in acquire, or acquires and releases that threw), or
 * undefined when it does: its latencies cover only the few acquisitions that got through.
 */
export function runFailure(row: BenchRow): string | undefined {
  const stuck = row.metrics["stuck workers"] ?? 0;
  const errors = row.metrics.errors ?? 0;
  if (stuck > 0) return `${stuck} workers stuck`;
  if (errors > 0) return `${errors} errors`;
  return undefined;
}

/** Which end of a metric is better: "lower" for latencies and costs, "higher" for rates. */
export type Better = "lower" | "higher";

/** The peer with the best `metric` among `rows` whose runs counted (see `runFailure`), or the first row when none did. */
export function bestPeer(rows: readonly BenchRow[], peers: ReadonlySet<string>, metric: string, better: Better): string {
  const sign = better === "lower" ? 1 : -1;
  const best = rows
    .filter((row) => peers.has(row.subject) && Number.isFinite(row.metrics[metric]) && runFailure(row) === undefined)
    .sort((a, b) => sign * ((a.metrics[metric] ?? 0) - (b.metrics[metric] ?? 0)))[0];
  return best?.subject ?? rows[0]?.subject ?? "";
}

/** A set of scenarios that share servers; `run` starts what it needs and tears it down. */
export interface ScenarioGroup {
  readonly name: string;
  /** Runs every scenario of the group at `scale`. */
  run(scale: BenchScale): Promise<readonly BenchTable[]>;
  /** What the issues asked of these numbers, checked in the report. */
  readonly targets?: readonly BenchTarget[];
}

/** Where a table sits in a sweep over the number of contending workers (what the plots draw). */
export interface SweepPoint {
  /** e.g. "Redis", "Redlock on 5 masters". */
  readonly system: string;
  /** Names the plot files, e.g. "redis". */
  readonly id: string;
  readonly waiters: number;
}

/** Rows printed together, with a ratio column against one subject. */
export interface BenchTable {
  /** Stable id targets refer to, e.g. "redis-contended-w16". */
  readonly id: string;
  readonly title: string;
  readonly rows: readonly BenchRow[];
  /** Subject the ratio column divides by; no ratio column without it. */
  readonly baseline?: string;
  /** Metric the ratio is computed on. */
  readonly ratioOf?: string;
  /** Free text under the table: settings, what the numbers mean. */
  readonly notes?: readonly string[];
  readonly sweep?: SweepPoint;
  /** A round-by-round companion's subject: the one it compares with every other (see `pairedRoundsTable`). */
  readonly pairedSubject?: string;
}
