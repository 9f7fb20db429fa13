import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { startTcpProxy, type TcpProxy } from "@distlock/test-servers";
import { checkHistory, peakPermitsHeld } from "../checker/check-history.js";
import type { Violation } from "../checker/violation.js";
import type { FenceServer } from "../fence/fenced-resource.js";
import { type HistoryEvent, machineNow } from "../history/history-event.js";
import type { BackendFixture } from "../matrix/backend-fixture.js";
import { FAULT_INJECTORS } from "../matrix/fault-injectors.js";
import type { FaultName } from "../matrix/fault-name.js";
import type { WorkerSubject } from "../worker/worker-protocol.js";
import { HistoryLog } from "./history-log.js";
import type { RowResult, SemaphoreRowStats } from "./row-result.js";
import type { RowRun } from "./row-run.js";
import type { RowSettings } from "./row-settings.js";
import { WorkerProcess } from "./worker-process.js";

/** What a row's workers contend for: a lock key whose holders write to `fence`, or a semaphore (as `RowSettings` shapes it). */
export type RowSubject = { readonly primitive: "lock"; readonly fence: FenceServer } | { readonly primitive: "semaphore" };

/** The SQLite file of a lock row's fenced resource, if it is one. */
function sqliteFileOf(subject: WorkerSubject): string | undefined {
  return subject.kind === "lock" && subject.fence.kind === "sql" && subject.fence.dialect === "sqlite" ? subject.fence.url : undefined;
}

/** How long a row waits for the first acquisition and for recovery after each fault. */
const PROGRESS_TIMEOUT_MS = 20_000;

/** Puts a proxy in front of every 127.0.0.1 host of `url`; returns the rewritten URL. */
async function proxyEveryHost(url: string): Promise<{ url: string; proxies: TcpProxy[] }> {
  const ports = [...url.matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
  const proxies = await Promise.all(ports.map((port) => startTcpProxy(port)));
  let index = 0;
  const proxied = url.replace(/127\.0\.0\.1:(\d+)/g, () => `127.0.0.1:${proxies[index++]?.port}`);
  return { url: proxied, proxies };
}

/**
 * Sets apart the overlaps a backend leaves to fencing, if fencing held: no lower or reused token was accepted. Only on a
 * lock's rows: nothing fences a semaphore's holders.
 */
function separateFencedOverlaps(fixture: BackendFixture, subject: RowSubject, found: readonly Violation[]): Pick<RowResult, "violations" | "fencedOverlaps"> {
  const fencingHeld = !found.some((v) => v.kind === "token-regression" || v.kind === "token-reuse");
  if (fixture.fencedOverlaps !== true || !fencingHeld || subject.primitive !== "lock") return { violations: found, fencedOverlaps: [] };
  return { violations: found.filter((v) => v.kind !== "overlap"), fencedOverlaps: found.filter((v) => v.kind === "overlap") };
}

function semaphoreStats(settings: RowSettings, events: readonly HistoryEvent[]): SemaphoreRowStats {
  return {
    permits: settings.semaphorePermits,
    counts: Array.from({ length: settings.lockersPerWorker }, (_, i) => settings.permitCounts[i % settings.permitCounts.length] ?? 1),
    acts: events.filter((event) => event.type === "act").length,
    holdsLost: new Set(events.flatMap((event) => (event.type === "lost" ? [event.hold] : []))).size,
    peakHeld: peakPermitsHeld(events),
  };
}

function summarise(
  fixture: BackendFixture,
  fault: FaultName,
  run: RowRun,
  startedAt: number,
  events: readonly HistoryEvent[],
): Omit<RowResult, "violations" | "fencedOverlaps"> {
  const acquired = events.filter((event) => event.type === "acquired");
  // Only the row's own fault: an injector may also mark the conditions it set up (a lagging replica).
  const faults = events.filter((event) => event.type === "fault" && event.fault === fault);
  const writes = events.flatMap((event) => (event.type === "write" ? [event] : []));
  const stale = writes.filter((w) => w.at > w.validUntil);
  const recoveries = faults.map((f) => (acquired.find((event) => event.at > f.at)?.at ?? Number.NaN) - f.at);
  return {
    backend: fixture.backend,
    fault,
    primitive: run.primitive,
    workers: run.workers.length,
    operations: acquired.length,
    faultsInjected: faults.length,
    writesAccepted: writes.filter((w) => w.accepted).length,
    writesRejected: writes.filter((w) => !w.accepted && w.failure === undefined).length,
    writesFailed: writes.filter((w) => w.failure !== undefined).length,
    staleWrites: stale.length,
    staleWritesAccepted: stale.filter((w) => w.accepted).length,
    recoveryMs: recoveries.length === 0 || recoveries.some(Number.isNaN) ? null : Math.max(...recoveries),
    durationMs: machineNow() - startedAt,
    workerFailures: run.workers.flatMap((w) => (w.failure === undefined ? [] : [`${w.name}: ${w.failure}`])),
    ...(run.primitive === "semaphore" ? { semaphore: semaphoreStats(run.settings, events) } : {}),
  };
}

/**
 * Runs one row: workers contend for a fresh key while `fault` is injected, a lock's holders writing to that key's
 * resource on `subject.fence` (the server of `fixture.fence`), a semaphore's acting under their permits; the history is
 * then checked.
 */
export async function runRow(fixture: BackendFixture, fault: FaultName, settings: RowSettings, subject: RowSubject): Promise<RowResult> {
  const startedAt = machineNow();
  const log = new HistoryLog();
  const key = `faults-${subject.primitive}-${fault}-${randomUUID()}`;
  if (subject.primitive === "lock") await subject.fence.prepare(key);
  const workerSubject: WorkerSubject =
    subject.primitive === "lock"
      ? { kind: "lock", fence: subject.fence.target }
      : { kind: "semaphore", permits: settings.semaphorePermits, counts: settings.permitCounts };
  const workers: WorkerProcess[] = [];
  const task = (url: string) => ({
    worker: `w${workers.length}`,
    url,
    key,
    subject: workerSubject,
    ttlMs: fixture.ttlMs,
    holdMs: settings.holdMs,
    waitMs: settings.livenessBoundMs,
    thinkMs: settings.thinkMs,
    lockers: settings.lockersPerWorker,
  });
  const spawnWorker = async (url = fixture.url) => {
    const worker = new WorkerProcess(task(url), log);
    workers.push(worker);
    await worker.start();
    return worker;
  };
  const proxied = fault === "network-cut" ? await proxyEveryHost(fixture.url) : undefined;
  try {
    const first = proxied === undefined ? undefined : await spawnWorker(proxied.url);
    await Promise.all(Array.from({ length: settings.workers - workers.length }, () => spawnWorker()));
    const run: RowRun = {
      fixture,
      settings,
      log,
      primitive: subject.primitive,
      key,
      workers,
      spawnWorker: () => spawnWorker(),
      embeddedFiles: [fixture.embeddedFile, sqliteFileOf(workerSubject)].filter((file): file is string => file !== undefined),
      ...(first === undefined || proxied === undefined ? {} : { proxied: { worker: first, proxies: proxied.proxies } }),
    };
    await log.next((event) => event.type === "acquired", PROGRESS_TIMEOUT_MS);
    await sleep(settings.warmupMs);
    for (let i = 0; i < settings.injections; i++) {
      await FAULT_INJECTORS[fault](run);
      await log.next((event) => event.type === "acquired", PROGRESS_TIMEOUT_MS);
      await sleep(settings.gapMs);
    }
    await Promise.all(workers.map((worker) => worker.stop()));
    const semaphore = subject.primitive === "semaphore" ? { semaphore: { permits: settings.semaphorePermits } } : {};
    const found = checkHistory(log.events, { livenessBoundMs: settings.livenessBoundMs, ...semaphore });
    return { ...summarise(fixture, fault, run, startedAt, log.events), ...separateFencedOverlaps(fixture, subject, found) };
  } finally {
    await Promise.allSettled(workers.map((worker) => worker.stop()));
    await Promise.allSettled((proxied?.proxies ?? []).map((proxy) => proxy.close()));
  }
}
