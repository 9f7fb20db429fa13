import type { BenchRow, BenchTable } from "./bench-row.js";
import type { LockSubject, OpenSubject } from "./lock-subject.js";
import { countsPer, type ServerCounter } from "./server-counter.js";
import { percentile } from "./stats.js";

const TTL_MS = 10_000;

/** One client per subject, serial acquire+release of one free key. */
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
}

interface Samples {
  open?: OpenSubject;
  readonly ops: number[];
  readonly acquires: number[];
  seconds: number;
  readonly counts: Record<string, number>;
}

/** The cost of a lock when nobody competes: each subject is opened and warmed up on its first turn and closed after its last. */
export async function uncontendedScenario<S extends LockSubject>(run: UncontendedRun<S>): Promise<BenchTable> {
  const rounds = run.rounds ?? 1;
  const perRound = Math.ceil(run.iterations / rounds);
  const samples: Samples[] = run.subjects.map(() => ({ ops: [], acquires: [], seconds: 0, counts: {} }));
  for (let round = 0; round < rounds; round++) {
    for (const [index, subject] of run.subjects.entries()) {
      const sample = samples[index] as Samples;
      const key = `${run.keyPrefix}${subject.id}`;
      if (sample.open === undefined) {
        sample.open = await subject.open(run.target);
        for (let i = 0; i < run.warmUp; i++) await (await sample.open.acquire(key, TTL_MS))();
      }
      const before = await run.counter?.read(subject);
      const started = performance.now();
      for (let i = 0; i < perRound; i++) {
        const t0 = performance.now();
        const release = await sample.open.acquire(key, TTL_MS);
        sample.acquires.push(performance.now() - t0);
        await release();
        sample.ops.push(performance.now() - t0);
      }
      sample.seconds += (performance.now() - started) / 1000;
      const after = await run.counter?.read(subject);
      if (run.counter !== undefined && before !== undefined && after !== undefined) {
        for (const [name, count] of Object.entries(countsPer(run.counter.readingCost, before, after, 1, "op")))
          sample.counts[name] = (sample.counts[name] ?? 0) + count;
      }
      if (round === rounds - 1) await sample.open.close();
    }
  }
  await run.counter?.close();
  const rows: BenchRow[] = run.subjects.map((subject, index) => {
    const sample = samples[index] as Samples;
    const acquire: Record<string, number> =
      run.acquireLatency === true ? { "acquire p50 µs": percentile(sample.acquires, 50) * 1000, "acquire p99 µs": percentile(sample.acquires, 99) * 1000 } : {};
    const perOp = Object.fromEntries(Object.entries(sample.counts).map(([name, count]) => [name, count / sample.ops.length]));
    return {
      scenario: "uncontended acquire+release",
      subject: subject.name,
      metrics: {
        "ops/s": sample.ops.length / sample.seconds,
        ...acquire,
        "p50 µs": percentile(sample.ops, 50) * 1000,
        "p99 µs": percentile(sample.ops, 99) * 1000,
        ...perOp,
      },
    };
  });
  const turns = rounds === 1 ? "" : `, in ${rounds} rounds with subjects taking turns`;
  return {
    id: `${run.id}-uncontended`,
    title: `${run.system} uncontended: one client per subject, ${perRound * rounds} serial acquire+release of one key${turns}`,
    rows,
    baseline: run.baseline,
    ratioOf: "ops/s",
    notes: [...run.subjects.map((subject) => `- ${subject.name}: ${subject.settings}`), ...(run.notes ?? [])],
  };
}
