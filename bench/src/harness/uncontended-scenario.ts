import type { BenchRow, BenchTable } from "./bench-row.js";
import { type BenchScale, DEFAULT_BENCH_SCALE, scaledCount } from "./bench-scale.js";
import { LatencyRecorder } from "./latency-recorder.js";
import { type LockSubject, type OpenSubject, permitsOf } from "./lock-subject.js";
import { measuredTurn } from "./measured-turn.js";
import { pairedRoundsTable } from "./paired-rounds.js";
import type { ServerCounter } from "./server-counter.js";
import { summarizeTurns, type TurnSample } from "./turn-summary.js";

const TTL_MS = 10_000;

/** One client per subject, serial acquire+release of one free key (or one permit of a free semaphore). */
export interface UncontendedRun<S extends LockSubject> {
  /** Names the system in the title, e.g. "Redis", "PostgreSQL". */
  readonly system: string;
  /** Table id is `<id>-uncontended`. */
  readonly id: string;
  /** URL or endpoint list every subject opens. */
  readonly target: string;
  readonly subjects: readonly S[];
  readonly baseline: string;
  /** Prefix of the key, in the backend's own key style. */
  readonly keyPrefix: string;
  /** Measured acquire+release pairs per subject (after the warm-up), split evenly over the rounds. */
  readonly iterations: number;
  readonly warmUp: number;
  /** Rounds in which subjects take turns, so a burst of load on a shared machine hits them all alike. @default 1 */
  readonly rounds?: number;
  /** Also report the latency of acquire alone. @default false */
  readonly acquireLatency?: boolean;
  /** Server-side counts, read around each subject's turn and reported per operation. */
  readonly counter?: ServerCounter<S>;
  readonly notes?: readonly string[];
  /** Divides `iterations` and `warmUp` for a quick run. @default DEFAULT_BENCH_SCALE */
  readonly scale?: BenchScale;
  /**
   * With `uncontendedTables`: the subjects (by name) each compared with every other round by round (see
   * `pairedRoundsTable`), the first in `<id>-uncontended-paired`, the next in `…-paired-2` and so on.
   */
  readonly pairedFor?: string | readonly string[];
  /** What one acquire takes, for the title. @default one key, or one permit for subjects with `permits` */
  readonly takes?: string;
}

/** The scenario's table, and with `pairedFor` a table of round-by-round comparisons for each subject it names. */
export async function uncontendedTables<S extends LockSubject>(run: UncontendedRun<S>): Promise<BenchTable[]> {
  const { table, turns } = await measureUncontended(run);
  const paired = run.pairedFor === undefined ? [] : typeof run.pairedFor === "string" ? [run.pairedFor] : run.pairedFor;
  const turnsBySubject = new Map(run.subjects.map((subject, index) => [subject.name, turns[index] ?? []]));
  return [
    table,
    ...paired.map((subject, index) => pairedRoundsTable(table, subject, turnsBySubject, `${table.id}-paired${index === 0 ? "" : `-${index + 1}`}`)),
  ];
}

/** The cost of a lock when nobody competes: each subject is opened and warmed up on its first turn and closed after its last. */
export async function uncontendedScenario<S extends LockSubject>(run: UncontendedRun<S>): Promise<BenchTable> {
  return (await measureUncontended(run)).table;
}

async function measureUncontended<S extends LockSubject>(run: UncontendedRun<S>): Promise<{ table: BenchTable; turns: TurnSample[][] }> {
  const permits = permitsOf(run.subjects);
  const rounds = run.rounds ?? 1;
  const scale = run.scale ?? DEFAULT_BENCH_SCALE;
  const perRound = Math.ceil(scaledCount(run.iterations, scale) / rounds);
  const warmUp = scaledCount(run.warmUp, scale);
  const opened: Array<OpenSubject | undefined> = run.subjects.map(() => undefined);
  const turns: TurnSample[][] = run.subjects.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, subject] of turnOrder(run.subjects, round)) {
      const key = `${run.keyPrefix}${subject.id}`;
      let open = opened[index];
      if (open === undefined) {
        open = opened[index] = await subject.open(run.target);
        for (let i = 0; i < warmUp; i++) await (await open.acquire(key, TTL_MS))();
      }
      turns[index]?.push(await measureTurn(run, subject, open, key, perRound));
      if (round === rounds - 1) await open.close();
    }
  }
  await run.counter?.close();
  const rows: BenchRow[] = run.subjects.map((subject, index) => ({
    scenario: "uncontended acquire+release",
    subject: subject.name,
    metrics: summarizeTurns(turns[index] ?? [], run.acquireLatency === true),
  }));
  const held = run.takes ?? (permits === 1 ? "one key" : `one permit of a semaphore with N = ${permits}`);
  const turnsNote = rounds === 1 ? "" : `, in ${rounds} rounds with subjects taking turns`;
  const table: BenchTable = {
    id: `${run.id}-uncontended`,
    title: `${run.system} uncontended: one client per subject, ${perRound * rounds} serial acquire+release of ${held}${turnsNote}`,
    rows,
    baseline: run.baseline,
    ratioOf: "ops/s",
    notes: [...run.subjects.map((subject) => `- ${subject.name}: ${subject.settings}`), UNCONTENDED_NOTE, ...(run.notes ?? [])],
  };
  return { table, turns };
}

/**
 * The subjects of `round` with their indexes, in reverse order every other round: a turn can be charged for the
 * garbage the turn before it left (a collection that starts in it), so no subject always follows the same one.
 */
export function turnOrder<T>(subjects: readonly T[], round: number): Array<[number, T]> {
  const order = [...subjects.entries()];
  return round % 2 === 0 ? order : order.reverse();
}

const UNCONTENDED_NOTE =
  "- subjects take turns in one order in even rounds and in the reverse order in odd ones; ops/s, the p50s and every per-op column: the median of the rounds' values; p99: over every sample of every round. client user/sys/CPU µs/op: `process.cpuUsage()` of the bench process, where every subject's client runs, around each turn (the total is exact; Linux splits it into user and sys by sampling at its timer tick, so the split of a short turn is rough)";

/** One turn of `perRound` serial acquire+release: latencies, wall time, the client's CPU time and the server's counts. */
async function measureTurn<S extends LockSubject>(run: UncontendedRun<S>, subject: S, open: OpenSubject, key: string, perRound: number): Promise<TurnSample> {
  return measuredTurn(run.counter, subject, async () => {
    const ops = new LatencyRecorder(perRound);
    const acquires = new LatencyRecorder(perRound);
    for (let i = 0; i < perRound; i++) {
      const t0 = performance.now();
      const release = await open.acquire(key, TTL_MS);
      acquires.record(performance.now() - t0);
      await release();
      ops.record(performance.now() - t0);
    }
    return { ops: ops.toArray(), acquires: acquires.toArray() };
  });
}
