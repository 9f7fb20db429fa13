import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile, runInProcesses, sharedClockMs } from "../harness/index.js";
import type { EtcdAcquisition, EtcdContendTask } from "./etcd-contend-worker.js";
import type { EtcdLockSubject } from "./etcd-lock-subjects.js";
import { EtcdRequestCounter } from "./etcd-request-counter.js";

const PROCESSES = 4;
const WINDOW_MS = 3_000;
const SETUP_MS = 1_500;
const TTL_MS = 10_000;
const WORKER_SCRIPT = new URL("./etcd-contend-worker.js", import.meta.url);

/** W workers over 4 OS processes hammer one key with an empty critical section. */
export async function etcdContendedScenario(
  endpoint: string,
  subjects: readonly EtcdLockSubject[],
  workerCounts: readonly number[],
  baseline: string,
): Promise<BenchTable[]> {
  const counter = new EtcdRequestCounter(endpoint);
  const tables: BenchTable[] = [];
  for (const workers of workerCounts) {
    const rows: BenchRow[] = [];
    for (const subject of subjects) rows.push(await measure(endpoint, counter, `bench/contended/${subject.id}/${workers}`, subject, workers));
    tables.push({
      title: `Contended hand-off: W = ${workers} workers over ${PROCESSES} processes, one key, empty critical section, ${WINDOW_MS / 1000} s`,
      rows,
      baseline,
      ratioOf: "acq/s",
      notes: ["- hand-off: from one worker's release call to the next worker's grant; fairness: fewest ÷ most acquisitions of any worker in the window"],
    });
  }
  return tables;
}

async function measure(endpoint: string, counter: EtcdRequestCounter, key: string, subject: EtcdLockSubject, workers: number): Promise<BenchRow> {
  const startAt = sharedClockMs() + SETUP_MS;
  const endAt = startAt + WINDOW_MS;
  const perProcess = (index: number) => Math.floor(workers / PROCESSES) + (index < workers % PROCESSES ? 1 : 0);
  const task = (index: number): EtcdContendTask => ({
    subject: subject.id,
    endpoints: [endpoint],
    key,
    workers: perProcess(index),
    process: index,
    ttlMs: TTL_MS,
    startAt,
    endAt,
  });
  const running = runInProcesses<EtcdContendTask, EtcdAcquisition[]>(WORKER_SCRIPT, PROCESSES, task);
  await new Promise((resolve) => setTimeout(resolve, startAt - sharedClockMs()));
  const requestsBefore = await counter.total();
  await new Promise((resolve) => setTimeout(resolve, endAt - sharedClockMs()));
  const requestsAfter = await counter.total();
  const inWindow = (await running)
    .flat()
    .filter(([, acquiredAt]) => acquiredAt >= startAt && acquiredAt < endAt)
    .sort((a, b) => a[1] - b[1]);
  const handOffs: number[] = [];
  for (let i = 1; i < inWindow.length; i++) {
    const [previous, current] = [inWindow[i - 1] as EtcdAcquisition, inWindow[i] as EtcdAcquisition];
    if (previous[0] !== current[0]) handOffs.push(current[1] - previous[2]);
  }
  const perWorker = new Map<string, number>();
  for (const [worker] of inWindow) perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
  const counts = Array.from({ length: PROCESSES }, (_, p) => Array.from({ length: perProcess(p) }, (_, w) => perWorker.get(`${p}/${w}`) ?? 0)).flat();
  return {
    scenario: `W=${workers}`,
    subject: subject.name,
    metrics: {
      "hand-off p50 ms": percentile(handOffs, 50),
      "hand-off p99 ms": percentile(handOffs, 99),
      "acq/s": inWindow.length / (WINDOW_MS / 1000),
      "fairness min/max": Math.min(...counts) / Math.max(...counts),
      "requests/acq": (requestsAfter - requestsBefore) / Math.max(1, inWindow.length),
    },
  };
}
