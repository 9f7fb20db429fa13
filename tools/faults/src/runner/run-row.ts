import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { startTcpProxy, type TcpProxy } from "@distlock/test-servers";
import { checkHistory, peakPermitsHeld } from "../checker/check-history.js";
import { checkMultiKeyHistory } from "../checker/check-multi-key.js";
import { longestHeldAfterDeath } from "../checker/held-after-death.js";
import type { Violation } from "../checker/violation.js";
import type { FenceServer } from "../fence/fenced-resource.js";
import { type HistoryEvent, lockerName, machineNow } from "../history/history-event.js";
import type { BackendFixture } from "../matrix/backend-fixture.js";
import { FAULT_INJECTORS } from "../matrix/fault-injectors.js";
import type { FaultName } from "../matrix/fault-name.js";
import type { WorkerSubject } from "../worker/worker-protocol.js";
import { DeadHolderProbe } from "./dead-holder-probe.js";
import { HistoryLog } from "./history-log.js";
import type { MultiKeyRowStats, RowResult, SemaphoreRowStats } from "./row-result.js";
import type { RowRun } from "./row-run.js";
import type { RowSettings } from "./row-settings.js";
import { WorkerProcess } from "./worker-process.js";

/**
 * What a row's workers contend for: a lock key, or sets of lock keys (as `RowSettings` shapes them), whose holders write
 * to each key's resource on `fence`; or a semaphore (as `RowSettings` shapes it).
 */
export type RowSubject = { readonly primitive: "lock" | "multi-key"; readonly fence: FenceServer } | { readonly primitive: "semaphore" };

/** The SQLite file of a lock row's fenced resource, if it is one. */
function sqliteFileOf(subject: WorkerSubject): string | undefined {
  return subject.kind === "lock" && subject.fence.kind === "sql" && subject.fence.dialect === "sqlite" ? subject.fence.url : undefined;
}

/** How long a row waits for the first acquisition and for recovery after each fault. */
const PROGRESS_TIMEOUT_MS = 20_000;

/** What a killed holder's key may stay held past its lease on the server: its expiry (etcd revokes expired leases in a sweep). */
const DEAD_HOLDER_EXPIRY_SLACK_MS = 1_000;

/** A 127.0.0.1 host with its port, as a URL names it: plain, or percent-encoded in a parameter (DynamoDB's `endpoint`). */
const LOCAL_HOST = /127\.0\.0\.1(:|%3A)(\d+)/gi;

/** Puts a proxy in front of every 127.0.0.1 host of `url`; returns the rewritten URL. */
async function proxyEveryHost(url: string): Promise<{ url: string; proxies: TcpProxy[] }> {
  const ports = [...url.matchAll(LOCAL_HOST)].map((match) => Number(match[2]));
  const proxies = await Promise.all(ports.map((port) => startTcpProxy(port)));
  let index = 0;
  const proxied = url.replace(LOCAL_HOST, (_, separator: string) => `127.0.0.1${separator}${proxies[index++]?.port}`);
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

/** A multi-key row's lockers that did not finish when told to stop (a deadlocked one would not), killed processes apart. */
function stuckLockers(run: RowRun, events: readonly HistoryEvent[]): number {
  const killed = new Set(events.flatMap((event) => (event.type === "killed" ? [event.worker] : [])));
  const stopped = new Set(events.flatMap((event) => (event.type === "worker-stopped" ? [event.worker] : [])));
  const lockers = run.workers
    .filter((worker) => !killed.has(worker.name))
    .flatMap((worker) => Array.from({ length: run.settings.lockersPerWorker }, (_, i) => lockerName(worker.name, i)));
  return lockers.filter((locker) => !stopped.has(locker)).length;
}

function multiKeyStats(run: RowRun, events: readonly HistoryEvent[]): MultiKeyRowStats {
  return {
    keys: run.settings.multiKeys,
    keysPerSet: run.settings.keysPerSet,
    stuckLockers: stuckLockers(run, events),
    longestHeldAfterDeathMs: longestHeldAfterDeath(events),
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
  // A multi-key grant is one `acquired` per key of its set.
  const operations = new Set(acquired.map((event) => event.hold)).size;
  // Only the row's own fault: an injector may also mark the conditions it set up (a lagging replica).
  const faults = events.filter((event) => event.type === "fault" && event.fault === fault);
  const writes = events.flatMap((event) => (event.type === "write" ? [event] : []));
  const stale = writes.filter((w) => w.at > w.validUntil);
  const paused = new Set(faults.flatMap((f) => (f.type === "fault" && f.targetHold !== undefined ? [f.targetHold] : [])));
  const recoveries = faults.map((f) => (acquired.find((event) => event.at > f.at)?.at ?? Number.NaN) - f.at);
  return {
    backend: fixture.backend,
    fault,
    primitive: run.primitive,
    workers: run.workers.length,
    operations,
    faultsInjected: faults.length,
    writesAccepted: writes.filter((w) => w.accepted).length,
    writesRejected: writes.filter((w) => !w.accepted && w.failure === undefined).length,
    writesFailed: writes.filter((w) => w.failure !== undefined).length,
    staleWrites: stale.length,
    staleWritesAccepted: stale.filter((w) => w.accepted).length,
    pausedStaleWritesAccepted: stale.filter((w) => w.accepted && paused.has(w.hold)).length,
    recoveryMs: recoveries.length === 0 || recoveries.some(Number.isNaN) ? null : Math.max(...recoveries),
    durationMs: machineNow() - startedAt,
    workerFailures: run.workers.flatMap((w) => (w.failure === undefined ? [] : [`${w.name}: ${w.failure}`])),
    ...(run.primitive === "semaphore" ? { semaphore: semaphoreStats(run.settings, events) } : {}),
    ...(run.primitive === "multi-key" ? { multiKey: multiKeyStats(run, events) } : {}),
  };
}

/** What the workers of a row are told to contend for. */
function workerSubjectOf(subject: RowSubject, settings: RowSettings, keys: readonly string[]): WorkerSubject {
  switch (subject.primitive) {
    case "lock":
      return { kind: "lock", fence: subject.fence.target };
    case "multi-key":
      return { kind: "multi-key", fence: subject.fence.target, keys, setSize: settings.keysPerSet };
    case "semaphore":
      return { kind: "semaphore", permits: settings.semaphorePermits, counts: settings.permitCounts };
  }
}

/** The row's history checked as its subject's: a lock's, a semaphore's, or a multi-key row's `keys`. */
function checkRow(fixture: BackendFixture, subject: RowSubject, settings: RowSettings, keys: readonly string[], events: readonly HistoryEvent[]): Violation[] {
  const livenessBoundMs = settings.livenessBoundMs;
  if (subject.primitive === "multi-key") return checkMultiKeyHistory(events, { livenessBoundMs, keys, deadHolderBoundMs: deadHolderBoundMs(fixture) });
  const semaphore = subject.primitive === "semaphore" ? { semaphore: { permits: settings.semaphorePermits } } : {};
  return checkHistory(events, { livenessBoundMs, ...semaphore });
}

const deadHolderBoundMs = (fixture: BackendFixture) => fixture.ttlMs + DEAD_HOLDER_EXPIRY_SLACK_MS;

/**
 * Runs one row: workers contend for a fresh key (or sets of a few fresh keys) while `fault` is injected, a lock's
 * holders writing to each key's resource on `subject.fence` (the server of `fixture.fence`), a semaphore's acting under
 * their permits; the history is then checked.
 */
export async function runRow(fixture: BackendFixture, fault: FaultName, settings: RowSettings, subject: RowSubject): Promise<RowResult> {
  const startedAt = machineNow();
  const log = new HistoryLog();
  const key = `faults-${subject.primitive}-${fault}-${randomUUID()}`;
  const keys = subject.primitive === "multi-key" ? Array.from({ length: settings.multiKeys }, (_, i) => `${key}/${i}`) : [key];
  if (subject.primitive !== "semaphore") for (const each of keys) await subject.fence.prepare(each);
  const workerSubject = workerSubjectOf(subject, settings, keys);
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
  const deadHolderProbe = subject.primitive === "multi-key" ? await DeadHolderProbe.open(fixture.url, keys, log, 2 * deadHolderBoundMs(fixture)) : undefined;
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
      ...(deadHolderProbe === undefined ? {} : { deadHolderProbe }),
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
    const found = checkRow(fixture, subject, settings, keys, log.events);
    return { ...summarise(fixture, fault, run, startedAt, log.events), ...separateFencedOverlaps(fixture, subject, found) };
  } finally {
    await Promise.allSettled(workers.map((worker) => worker.stop()));
    await Promise.allSettled([...(proxied?.proxies ?? []).map((proxy) => proxy.close()), deadHolderProbe?.close()]);
  }
}
