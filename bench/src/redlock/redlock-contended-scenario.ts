import type { BenchRow, BenchTable } from "../harness/index.js";
import { percentile, runInProcesses, sharedClockMs } from "../harness/index.js";
import { GroupCounters } from "./group-counters.js";
import type { RedlockAcquisition, RedlockContendTask } from "./redlock-contend-worker.js";
import type { RedlockSubject } from "./redlock-subjects.js";

const PROCESSES = 4;
const WINDOW_MS = 3_000;
const SETUP_MS = 1_500;
const TTL_MS = 10_000;
const WORKER_SCRIPT = new URL("./redlock-contend-worker.js", import.meta.url);

/** W workers over 4 OS processes hammer one key on N masters with an empty critical section. */
export async function redlockContendedScenario(
  url: string,
  subjects: readonly RedlockSubject[],
  workerCounts: readonly number[],
  ours: string,
): Promise<BenchTable[]> {
  const counters = new GroupCounters(url);
  const tables: BenchTable[] = [];
  for (const workers of workerCounts) {
    const rows: BenchRow[] = [];
    for (const subject of subjects) rows.push(await measure(url, counters, `bench:redlock:contended:${subject.id}:${workers}`, subject, workers));
    const best = rows.filter((r) => !r.subject.startsWith(ours)).sort((a, b) => (a.metrics["hand-off p50 ms"] ?? 0) - (b.metrics["hand-off p50 ms"] ?? 0))[0];
    tables.push({
      title: `Redlock contended hand-off: W = ${workers} workers over ${PROCESSES} processes, one key on ${counters.servers} masters, empty critical section, ${WINDOW_MS / 1000} s`,
      rows,
      baseline: best?.subject ?? ours,
      ratioOf: "hand-off p50 ms",
    });
  }
  await counters.close();
  return tables;
}

async function measure(url: string, counters: GroupCounters, key: string, subject: RedlockSubject, workers: number): Promise<BenchRow> {
  const startAt = sharedClockMs() + SETUP_MS;
  const endAt = startAt + WINDOW_MS;
  const perProcess = (index: number) => Math.floor(workers / PROCESSES) + (index < workers % PROCESSES ? 1 : 0);
  const task = (index: number): RedlockContendTask => ({
    subject: subject.id,
    url,
    key,
    workers: perProcess(index),
    process: index,
    ttlMs: TTL_MS,
    startAt,
    endAt,
  });
  const running = runInProcesses<RedlockContendTask, RedlockAcquisition[]>(WORKER_SCRIPT, PROCESSES, task);
  await new Promise((resolve) => setTimeout(resolve, startAt - sharedClockMs()));
  const requestsBefore = await counters.calls(subject.clientCommands);
  await new Promise((resolve) => setTimeout(resolve, endAt - sharedClockMs()));
  const requestsAfter = await counters.calls(subject.clientCommands);
  const all = (await running).flat().sort((a, b) => a[1] - b[1]);
  const inWindow = all.filter(([, acquiredAt]) => acquiredAt >= startAt && acquiredAt < endAt);
  const handOffs: number[] = [];
  for (let i = 1; i < inWindow.length; i++) {
    const [previous, current] = [inWindow[i - 1] as RedlockAcquisition, inWindow[i] as RedlockAcquisition];
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
      "requests/acq (all nodes)": (requestsAfter - requestsBefore) / inWindow.length,
    },
  };
}
