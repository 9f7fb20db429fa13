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
}

/** Rows printed together, with a ratio column against one subject. */
export interface BenchTable {
  readonly title: string;
  readonly rows: readonly BenchRow[];
  /** Subject the ratio column divides by. */
  readonly baseline: string;
  /** Metric the ratio is computed on. */
  readonly ratioOf: string;
  /** Free text under the table: settings, what the numbers mean. */
  readonly notes?: readonly string[];
}
