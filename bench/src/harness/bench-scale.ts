/** How much of every scenario a run measures. */
export interface BenchScale {
  /** A quick pass: enough to see every table render, too few samples to compare subjects. @default false */
  readonly quick: boolean;
  /** Divides every count a scenario runs: measured iterations, warm-ups, held locks, hand-offs. @default 1 */
  readonly countDivisor: number;
  /** Divides every measured time window. @default 1 */
  readonly windowDivisor: number;
  /** A contended sweep stops at this many workers (its smallest W always runs). @default Infinity */
  readonly maxWorkers: number;
}

/** The full run, as the report in docs/benchmarks is made. */
export const DEFAULT_BENCH_SCALE: BenchScale = Object.freeze({ quick: false, countDivisor: 1, windowDivisor: 1, maxWorkers: Number.POSITIVE_INFINITY });

/** What `DISTLOCK_BENCH_QUICK=1` runs: a tenth of the counts, a third of the windows, W = 4 only. */
export const QUICK_BENCH_SCALE: BenchScale = Object.freeze({ quick: true, countDivisor: 10, windowDivisor: 3, maxWorkers: 4 });

/** Quick when `DISTLOCK_BENCH_QUICK=1`, else the full run. */
export function benchScaleFrom(env: NodeJS.ProcessEnv): BenchScale {
  return env.DISTLOCK_BENCH_QUICK === "1" ? QUICK_BENCH_SCALE : DEFAULT_BENCH_SCALE;
}

/** `count` at `scale`, rounded up and at least 1. */
export function scaledCount(count: number, scale: BenchScale): number {
  return Math.max(1, Math.ceil(count / scale.countDivisor));
}

/** A time window of `ms` at `scale`, in whole ms. */
export function scaledMs(ms: number, scale: BenchScale): number {
  return Math.max(1, Math.round(ms / scale.windowDivisor));
}

/** The worker counts of a sweep at `scale`: those up to its `maxWorkers`, and the smallest always. */
export function scaledWorkerCounts(counts: readonly number[], scale: BenchScale): number[] {
  const smallest = Math.min(...counts);
  return counts.filter((count) => count <= scale.maxWorkers || count === smallest);
}
