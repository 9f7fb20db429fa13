import { LatencyRecorder } from "./latency-recorder.js";
import { percentile } from "./stats.js";

/** What one subject's turn in one round of an uncontended scenario measured. */
export interface TurnSample {
  /** Latency of each acquire+release, in ms. */
  readonly ops: readonly number[];
  /** Latency of each acquire alone, in ms. */
  readonly acquires: readonly number[];
  /** Wall time of the turn, in s. */
  readonly seconds: number;
  /** The turn's costs per operation by column name, e.g. `client user µs/op`, `requests/op`. */
  readonly perOp: Readonly<Record<string, number>>;
}

/** The middle value of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * A subject's row from its turns: ops/s, the p50s and every per-operation column as the median of the turns' values (a
 * burst of load from elsewhere on a shared machine spoils a turn or two, not the row); the p99s over every sample of
 * every turn, since one turn has too few samples for its own.
 */
export function summarizeTurns(turns: readonly TurnSample[], acquireLatency: boolean): Record<string, number> {
  const pooled = (samples: (turn: TurnSample) => readonly number[]) => percentile(turns.flatMap(samples), 99) * 1000;
  const medianP50 = (samples: (turn: TurnSample) => readonly number[]) => median(turns.map((turn) => percentile(samples(turn), 50))) * 1000;
  const acquire: Record<string, number> = acquireLatency
    ? { "acquire p50 µs": medianP50((turn) => turn.acquires), "acquire p99 µs": pooled((turn) => turn.acquires) }
    : {};
  const columns = [...new Set(turns.flatMap((turn) => Object.keys(turn.perOp)))];
  return {
    "ops/s": median(turns.map((turn) => turn.ops.length / turn.seconds)),
    ...acquire,
    "p50 µs": medianP50((turn) => turn.ops),
    "p99 µs": pooled((turn) => turn.ops),
    ...Object.fromEntries(columns.map((column) => [column, median(turns.flatMap((turn) => turn.perOp[column] ?? []))])),
  };
}

/** The client's CPU time over `ops` operations, from a `process.cpuUsage()` difference: user, system and both, in µs/op. */
export function clientCpuPerOp(usage: NodeJS.CpuUsage, ops: number): Record<string, number> {
  const per = Math.max(1, ops);
  return {
    "client user µs/op": usage.user / per,
    "client sys µs/op": usage.system / per,
    "client CPU µs/op": (usage.user + usage.system) / per,
  };
}

/** Runs `op` `count` times in a row and measures the turn: each op's latency, the wall time and the client CPU per op. */
export async function measureOps(op: (index: number) => Promise<unknown>, count: number): Promise<TurnSample> {
  const ops = new LatencyRecorder(count);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const begun = performance.now();
    await op(i);
    ops.record(performance.now() - begun);
  }
  const seconds = (performance.now() - started) / 1000;
  return { ops: ops.toArray(), acquires: [], seconds, perOp: clientCpuPerOp(process.cpuUsage(cpu), count) };
}
