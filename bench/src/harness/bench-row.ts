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

/** A set of scenarios that share servers; `run` starts what it needs and tears it down. */
export interface ScenarioGroup {
  readonly name: string;
  run(): Promise<readonly BenchTable[]>;
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
  /** Subject the ratio column divides by. */
  readonly baseline: string;
  /** Metric the ratio is computed on. */
  readonly ratioOf: string;
  /** Free text under the table: settings, what the numbers mean. */
  readonly notes?: readonly string[];
  readonly sweep?: SweepPoint;
}
