import { type BenchRow, type BenchTable, type Better, bestPeer } from "./bench-row.js";
import { type BenchScale, DEFAULT_BENCH_SCALE, scaledMs, scaledWorkerCounts } from "./bench-scale.js";
import { type ContendReply, type ContendTask, type ContendWindow, DRAIN_MS } from "./contend-protocol.js";
import { contentionMetrics } from "./contention-metrics.js";
import { type LockSubject, peerNames, permitsOf } from "./lock-subject.js";
import { countsPer, type ServerCounter } from "./server-counter.js";
import { sharedClockMs, sleepUntil } from "./stats.js";
import { runInProcesses } from "./worker-processes.js";

/** The measured window of one contended run (before scaling). */
export const CONTENDED_WINDOW_MS = 3_000;
/**
 * Before the window, every worker already loops on the same key this long (not counted): a subject is measured warm,
 * its contended path compiled by V8 (in a cold 3 s window, 22 % of the workers' CPU went to V8's compiler).
 */
export const CONTENDED_WARM_UP_MS = 1_000;
/** How long the worker processes may take to import, connect and warm up. */
const READY_TIMEOUT_MS = 120_000;
/** From the moment every worker is ready to the window's start: the start message's trip to each process. */
const START_DELAY_MS = 100;
const TTL_MS = 10_000;
const PROCESSES = 4;
const WORKER_SCRIPT = new URL("./contend-worker.js", import.meta.url);
/** Past the drain, how long a worker may take to close and reply before it is killed. */
const EXIT_GRACE_MS = 30_000;

/** Where and how a backend's contended runs happen. */
export interface ContendedRun<S extends LockSubject> {
  /** URL or endpoint list every subject opens. */
  readonly target: string;
  /** `import.meta.url` of the module that exports the subjects: worker processes import it to find them by id. */
  readonly subjectsModule: string;
  /** Prefix of every key, in the backend's own key style (`bench:contended:`, `bench/contended/`). */
  readonly keyPrefix: string;
  /** Server-side counts, read at the start and the end of the window and reported per acquisition. */
  readonly counter?: ServerCounter<S>;
  /** Shortens the window (and a sweep's worker counts) for a quick run. @default DEFAULT_BENCH_SCALE */
  readonly scale?: BenchScale;
}

/** How a contended run is shaped. */
export interface ContendShape {
  readonly processes: number;
  readonly workers: number;
  /** One key for everyone (hand-off) or one key per process (throughput of the shared server or file). */
  readonly keyPerProcess: boolean;
}

/** A sweep over the number of workers, one table per count. */
export interface ContendedSweep<S extends LockSubject> extends ContendedRun<S> {
  /** Names the system in titles and plots, e.g. "Redis", "Redlock on 5 masters". */
  readonly system: string;
  /** Table ids are `<id>-contended-w<W>`; also names the plot files. */
  readonly id: string;
  readonly subjects: readonly S[];
  readonly workerCounts: readonly number[];
  readonly ratioOf: string;
  /** Which end of `ratioOf` is better, to pick the default baseline. @default "lower" */
  readonly better?: Better;
  /** Subject the ratio divides by. @default the peer with the best measured `ratioOf` */
  readonly baseline?: string;
  readonly notes?: readonly string[];
  /** What one acquire takes, for the titles. @default one key, or one permit for subjects with `permits` */
  readonly takes?: string;
}

const HAND_OFF_NOTE = `- client CPU: \`process.cpuUsage()\` of the worker processes from the window's start until their loops ended, per acquisition they made in that time; hand-off: from one worker's release call to the next worker's grant; wait: from a worker's acquire call to its grant; fairness: fewest ÷ most acquisitions of any worker in the window; stuck workers (only where any): still inside acquire ${DRAIN_MS / 1000} s after the window ended; errors (only where any): acquires or releases that threw`;

/**
 * For each W, every subject in turn: W workers over 4 OS processes hammer one key (or take one permit each of one
 * semaphore, for subjects with `permits`) with an empty critical section.
 */
export async function contendedSweep<S extends LockSubject>(sweep: ContendedSweep<S>): Promise<BenchTable[]> {
  const tables: BenchTable[] = [];
  const permits = permitsOf(sweep.subjects);
  const windowS = scaledMs(CONTENDED_WINDOW_MS, sweep.scale ?? DEFAULT_BENCH_SCALE) / 1000;
  const warmUpS = scaledMs(CONTENDED_WARM_UP_MS, sweep.scale ?? DEFAULT_BENCH_SCALE) / 1000;
  for (const workers of scaledWorkerCounts(sweep.workerCounts, sweep.scale ?? DEFAULT_BENCH_SCALE)) {
    const shape = { processes: PROCESSES, workers, keyPerProcess: false };
    const rows: BenchRow[] = [];
    for (const subject of sweep.subjects) rows.push(await measureContended(sweep, subject, shape));
    const contended = permits === 1 ? "contended hand-off" : "contended";
    const held = sweep.takes ?? (permits === 1 ? "one key" : `one semaphore with N = ${permits} permits, each acquire taking one`);
    tables.push({
      id: `${sweep.id}-contended-w${workers}`,
      title: `${sweep.system} ${contended}: W = ${workers} workers over ${PROCESSES} processes, ${held}, empty critical section, ${windowS} s after ${warmUpS} s of warm-up`,
      rows,
      baseline: sweep.baseline ?? bestPeer(rows, peerNames(sweep.subjects), sweep.ratioOf, sweep.better ?? "lower"),
      ratioOf: sweep.ratioOf,
      sweep: { system: sweep.system, id: sweep.id, waiters: workers },
      notes: [HAND_OFF_NOTE, ...(sweep.notes ?? [])],
    });
  }
  await sweep.counter?.close();
  return tables;
}

const noWindow = () => undefined;

/** `shape.workers` workers over `shape.processes` OS processes loop acquire+release with an empty critical section. */
export async function measureContended<S extends LockSubject>(run: ContendedRun<S>, subject: S, shape: ContendShape): Promise<BenchRow> {
  const perProcess = (index: number) => Math.floor(shape.workers / shape.processes) + (index < shape.workers % shape.processes ? 1 : 0);
  const windowMs = scaledMs(CONTENDED_WINDOW_MS, run.scale ?? DEFAULT_BENCH_SCALE);
  const warmUpMs = scaledMs(CONTENDED_WARM_UP_MS, run.scale ?? DEFAULT_BENCH_SCALE);
  const key = `${run.keyPrefix}${subject.id}-w${shape.workers}-p${shape.processes}${shape.keyPerProcess ? "-own-key" : ""}`;
  let opened: (window: ContendWindow) => void = () => undefined;
  const started = new Promise<ContendWindow>((resolve) => {
    opened = resolve;
  });
  const running = runInProcesses<ContendTask, ContendWindow, ContendReply>({
    script: WORKER_SCRIPT,
    count: shape.processes,
    input: (index) => ({
      subjectsModule: run.subjectsModule,
      subject: subject.id,
      target: run.target,
      key: shape.keyPerProcess ? `${key}-${index}` : key,
      workers: perProcess(index),
      process: index,
      ttlMs: TTL_MS,
    }),
    start: () => {
      const warmUpAt = sharedClockMs() + START_DELAY_MS;
      const window = { warmUpAt, startAt: warmUpAt + warmUpMs, endAt: warmUpAt + warmUpMs + windowMs };
      opened(window);
      return window;
    },
    readyTimeoutMs: READY_TIMEOUT_MS,
    runTimeoutMs: START_DELAY_MS + warmUpMs + windowMs + DRAIN_MS + EXIT_GRACE_MS,
  });
  const window = await Promise.race([started, running.then(noWindow, noWindow)]);
  if (window === undefined) {
    await running;
    throw new Error(`${subject.name}: the bench workers replied before the window opened`);
  }
  await sleepUntil(window.startAt);
  const before = await run.counter?.read(subject);
  await sleepUntil(window.endAt);
  const after = await run.counter?.read(subject);
  const workers = Array.from({ length: shape.processes }, (_, p) => Array.from({ length: perProcess(p) }, (_, w) => `${p}/${w}`)).flat();
  const replies = await running;
  // A hand-off (one release, the next grant) exists only where one holder at a time shares one key.
  const { granted, metrics } = contentionMetrics(
    replies.flatMap((reply) => reply.acquisitions),
    window,
    workers,
    !shape.keyPerProcess && permitsOf([subject]) === 1,
  );
  const stuck = replies.reduce((sum, reply) => sum + reply.stuck, 0);
  if (stuck > 0) metrics["stuck workers"] = stuck;
  const errors = replies.reduce((sum, reply) => sum + reply.errors, 0);
  if (errors > 0) {
    metrics.errors = errors;
    console.error(`${subject.name}, W=${shape.workers}: ${errors} acquire/release errors; the first: ${replies.find((reply) => reply.firstError)?.firstError}`);
  }
  metrics["client CPU µs/acq"] = clientCpuPerAcquisition(replies);
  if (run.counter !== undefined && before !== undefined && after !== undefined)
    Object.assign(metrics, countsPer(run.counter.readingCost, before, after, granted, "acq"));
  const processes = `${shape.processes} process${shape.processes === 1 ? "" : "es"}`;
  return { scenario: `W=${shape.workers} over ${processes}${shape.keyPerProcess ? ", key per process" : ""}`, subject: subject.name, metrics };
}

/** The worker processes' CPU time per acquisition, over each one's time from the window's start until its loops ended. */
function clientCpuPerAcquisition(replies: readonly ContendReply[]): number {
  const us = replies.reduce((sum, reply) => sum + reply.cpu.us, 0);
  const acquisitions = replies.reduce((sum, reply) => sum + reply.cpu.acquisitions, 0);
  return us / Math.max(1, acquisitions);
}
