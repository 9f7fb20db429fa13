import type { BenchTable } from "./bench-row.js";
import type { LinePlot } from "./svg-line-plot.js";

/** One plot file of a contended sweep. */
export interface SweepPlot {
  /** File name, e.g. "redis-p99-wait.svg". */
  readonly file: string;
  /** e.g. "Redis". */
  readonly system: string;
  readonly plot: LinePlot;
}

interface PlottedMetric {
  readonly metric: string;
  readonly file: string;
  readonly title: string;
  readonly yLabel: string;
  readonly logY: boolean;
}

const PLOTTED: readonly PlottedMetric[] = [
  { metric: "acq/s", file: "acquisitions-per-second", title: "hand-off rate", yLabel: "acquisitions/s", logY: false },
  { metric: "wait p99 ms", file: "p99-wait", title: "p99 wait", yLabel: "p99 wait (ms)", logY: true },
  { metric: "requests/acq", file: "requests-per-acquisition", title: "server requests per acquisition", yLabel: "requests / acquisition", logY: false },
  {
    metric: "server cmds/acq",
    file: "server-commands-per-acquisition",
    title: "server commands per acquisition",
    yLabel: "commands / acquisition",
    logY: false,
  },
];

/** For every contended sweep among `tables`: each plotted metric it measured against the number of waiters, a line per subject. */
export function sweepPlots(tables: readonly BenchTable[]): SweepPlot[] {
  const sweeps = new Map<string, BenchTable[]>();
  for (const table of tables) if (table.sweep !== undefined) sweeps.set(table.sweep.id, [...(sweeps.get(table.sweep.id) ?? []), table]);
  const plots: SweepPlot[] = [];
  for (const [id, sweep] of sweeps) {
    const system = sweep[0]?.sweep?.system ?? id;
    const subjects = [...new Set(sweep.flatMap((table) => table.rows.map((row) => row.subject)))];
    for (const spec of PLOTTED) {
      if (!sweep.some((table) => table.rows.some((row) => row.metrics[spec.metric] !== undefined))) continue;
      const series = subjects.map((subject) => ({
        name: withStuck(subject, sweep),
        points: sweep.map(
          (table) => [table.sweep?.waiters ?? 0, table.rows.find((row) => row.subject === subject)?.metrics[spec.metric] ?? Number.NaN] as const,
        ),
      }));
      plots.push({
        file: `${id}-${spec.file}.svg`,
        system,
        plot: { title: `${system}: ${spec.title} vs waiters`, xLabel: "contending workers W (over 4 processes)", yLabel: spec.yLabel, series, logY: spec.logY },
      });
    }
  }
  return plots;
}

/** The subject's name, followed by the W values at which some of its workers never finished acquiring (a livelock). */
function withStuck(subject: string, sweep: readonly BenchTable[]): string {
  const stuckAt = sweep
    .filter((table) => (table.rows.find((row) => row.subject === subject)?.metrics["stuck workers"] ?? 0) > 0)
    .map((table) => table.sweep?.waiters);
  return stuckAt.length === 0 ? subject : `${subject} (workers stuck at W = ${stuckAt.join(", ")})`;
}
