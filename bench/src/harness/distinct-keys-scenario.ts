import type { BenchRow, BenchTable } from "./bench-row.js";
import { type BenchScale, DEFAULT_BENCH_SCALE, scaledMs } from "./bench-scale.js";
import { LatencyRecorder } from "./latency-recorder.js";
import type { LockSubject, OpenSubject } from "./lock-subject.js";
import { measuredTurn } from "./measured-turn.js";
import { pairedRoundsTable } from "./paired-rounds.js";
import type { ServerCounter } from "./server-counter.js";
import { summarizeTurns, type TurnSample } from "./turn-summary.js";
import { turnOrder } from "./uncontended-scenario.js";

const TTL_MS = 10_000;
/** Room for a turn's latencies: more acquire+release pairs than one process has made in a 2 s turn here (~120,000). */
const OPS_ROOM = 1 << 18;

/** C concurrent loops in one process, each taking and giving back a random key out of `keys`, one client per subject. */
export interface DistinctKeysRun<S extends LockSubject> {
  /** Names the system in the titles, e.g. "Redis". */
  readonly system: string;
  /** Table ids are `<id>-distinct-c<C>`. */
  readonly id: string;
  readonly target: string;
  readonly subjects: readonly S[];
  /** The concurrencies, one table each. */
  readonly concurrencies: readonly number[];
  /** How many keys the loops pick from. */
  readonly keys: number;
  readonly keyPrefix: string;
  /** Length of one subject's turn, ms. */
  readonly turnMs: number;
  /** Rounds in which the subjects take turns. */
  readonly rounds: number;
  readonly baseline: string;
  /** The subject (by name) also compared with every other round by round (see `pairedRoundsTable`), in tables `<id>-distinct-c<C>-paired`. */
  readonly pairedFor?: string;
  readonly counter?: ServerCounter<S>;
  readonly notes?: readonly string[];
  readonly scale?: BenchScale;
}

/**
 * Production's common shape: each request locks its own entity, many at once, through one client per process (each loop
 * draws from its own share of the keys, so keys are never contended). For each
 * C, every subject in turn (the order reversed every other round) runs C loops over random keys for `turnMs`; a row is
 * the median over the rounds, its p99 pooled. With `pairedFor`, each table is followed by its round-by-round comparisons.
 */
export async function distinctKeysTables<S extends LockSubject>(run: DistinctKeysRun<S>): Promise<BenchTable[]> {
  const scale = run.scale ?? DEFAULT_BENCH_SCALE;
  const turnMs = scaledMs(run.turnMs, scale);
  const opened = await Promise.all(run.subjects.map((subject) => subject.open(run.target)));
  try {
    const tables: BenchTable[] = [];
    for (const concurrency of run.concurrencies) {
      const turns: TurnSample[][] = run.subjects.map(() => []);
      for (let round = 0; round < run.rounds; round++) {
        for (const [index, subject] of turnOrder(run.subjects, round)) {
          const open = opened[index] as OpenSubject;
          turns[index]?.push(await measureTurn(run, subject, open, concurrency, turnMs));
        }
      }
      const rows: BenchRow[] = run.subjects.map((subject, index) => ({
        scenario: `C=${concurrency} over ${run.keys.toLocaleString("en-US")} keys`,
        subject: subject.name,
        metrics: summarizeTurns(turns[index] ?? [], false),
      }));
      const table: BenchTable = {
        id: `${run.id}-distinct-c${concurrency}`,
        title: `${run.system} distinct keys: C = ${concurrency} loops in one process, each acquire+release of a random key of ${run.keys.toLocaleString("en-US")}, ${turnMs / 1000} s turns, ${run.rounds} rounds`,
        rows,
        baseline: run.baseline,
        ratioOf: "ops/s",
        notes: [
          "- one client (one provider, one connection pool) per subject in this process; client CPU: `process.cpuUsage()` of the turn per acquire+release; p50 the median of the rounds' p50s, p99 pooled",
          ...(run.notes ?? []),
        ],
      };
      tables.push(table);
      if (run.pairedFor !== undefined) {
        const turnsBySubject = new Map(run.subjects.map((subject, index) => [subject.name, turns[index] ?? []]));
        tables.push(pairedRoundsTable(table, run.pairedFor, turnsBySubject));
      }
    }
    return tables;
  } finally {
    await Promise.allSettled(opened.map((open) => open.close()));
    await run.counter?.close();
  }
}

async function measureTurn<S extends LockSubject>(
  run: DistinctKeysRun<S>,
  subject: S,
  open: OpenSubject,
  concurrency: number,
  turnMs: number,
): Promise<TurnSample> {
  return measuredTurn(run.counter, subject, async () => {
    const ops = new LatencyRecorder(OPS_ROOM);
    const end = performance.now() + turnMs;
    // Loop i takes keys i, i + C, i + 2C, … at random: no two loops ask for one key at once (the floors cannot wait).
    const slice = Math.max(1, Math.floor(run.keys / concurrency));
    await Promise.all(
      Array.from({ length: concurrency }, async (_, loop) => {
        while (performance.now() < end) {
          const key = `${run.keyPrefix}${subject.id}:${Math.floor(Math.random() * slice) * concurrency + loop}`;
          const t0 = performance.now();
          const release = await open.acquire(key, TTL_MS);
          await release();
          ops.record(performance.now() - t0);
        }
      }),
    );
    return { ops: ops.toArray(), acquires: [] };
  });
}
