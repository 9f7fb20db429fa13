import type { BenchRow } from "../harness/index.js";
import { percentile, runInProcesses, sharedClockMs } from "../harness/index.js";
import type { SqlAcquisition, SqlContendTask } from "./sql-contend-worker.js";
import type { SqlLockSubject } from "./sql-lock-subjects.js";

const WINDOW_MS = 3_000;
const SETUP_MS = 2_000;
const TTL_MS = 10_000;
const WORKER_SCRIPT = new URL("./sql-contend-worker.js", import.meta.url);

/** How a contended run is shaped. */
export interface ContendShape {
  readonly processes: number;
  readonly workers: number;
  /** One key for everyone (hand-off) or one key per process (throughput of the shared database). */
  readonly keyPerProcess: boolean;
}

/** `shape.workers` workers over `shape.processes` OS processes loop acquire+release with an empty critical section. */
export async function sqlContendedRow(url: string, subject: SqlLockSubject, shape: ContendShape): Promise<BenchRow> {
  const startAt = sharedClockMs() + SETUP_MS;
  const endAt = startAt + WINDOW_MS;
  const perProcess = (index: number) => Math.floor(shape.workers / shape.processes) + (index < shape.workers % shape.processes ? 1 : 0);
  const key = `bench:contended:${subject.id}:${shape.workers}:${shape.processes}:${shape.keyPerProcess}`;
  const task = (index: number): SqlContendTask => ({
    subject: subject.id,
    url,
    key,
    keyPerProcess: shape.keyPerProcess,
    workers: perProcess(index),
    process: index,
    ttlMs: TTL_MS,
    startAt,
    endAt,
  });
  const all = (await runInProcesses<SqlContendTask, SqlAcquisition[]>(WORKER_SCRIPT, shape.processes, task)).flat().sort((a, b) => a[1] - b[1]);
  const inWindow = all.filter(([, acquiredAt]) => acquiredAt >= startAt && acquiredAt < endAt);
  const handOffs: number[] = [];
  for (let i = 1; i < inWindow.length; i++) {
    const [previous, current] = [inWindow[i - 1] as SqlAcquisition, inWindow[i] as SqlAcquisition];
    if (previous[0] !== current[0]) handOffs.push(current[1] - previous[2]);
  }
  const perWorker = new Map<string, number>();
  for (const [worker] of inWindow) perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
  const counts = Array.from({ length: shape.processes }, (_, p) => Array.from({ length: perProcess(p) }, (_, w) => perWorker.get(`${p}/${w}`) ?? 0)).flat();
  const metrics: Record<string, number> = { "acq/s": inWindow.length / (WINDOW_MS / 1000), "fairness min/max": Math.min(...counts) / Math.max(...counts) };
  if (!shape.keyPerProcess) Object.assign(metrics, { "hand-off p50 ms": percentile(handOffs, 50), "hand-off p99 ms": percentile(handOffs, 99) });
  return { scenario: `W=${shape.workers} over ${shape.processes} processes`, subject: subject.name, metrics };
}
