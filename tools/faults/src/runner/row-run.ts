import type { TcpProxy } from "@distlock/test-servers";
import { type HistoryEvent, lockerOf, machineNow, processOf } from "../history/history-event.js";
import type { BackendFixture } from "../matrix/backend-fixture.js";
import type { Primitive } from "../matrix/primitive.js";
import type { DeadHolderProbe } from "./dead-holder-probe.js";
import type { HistoryLog } from "./history-log.js";
import type { RowSettings } from "./row-settings.js";
import type { WorkerProcess } from "./worker-process.js";

export type Of<T extends HistoryEvent["type"]> = Extract<HistoryEvent, { type: T }>;

/** What a fault injector may touch while a row runs. */
export interface RowRun {
  readonly fixture: BackendFixture;
  readonly settings: RowSettings;
  readonly log: HistoryLog;
  /** What the workers contend for: `key` as a lock, as a semaphore of `settings.semaphorePermits`, or sets of `keys`. */
  readonly primitive: Primitive;
  /** The key the workers contend for (the semaphore's name; the prefix of a multi-key row's keys). */
  readonly key: string;
  /** Watches how long a killed holder's keys stay held on the server (multi-key rows). */
  readonly deadHolderProbe?: DeadHolderProbe;
  /** Every worker started so far, killed ones included. */
  readonly workers: readonly WorkerProcess[];
  /** The worker that talks to the backend through `proxies` (network-cut rows only). */
  readonly proxied?: { readonly worker: WorkerProcess; readonly proxies: readonly TcpProxy[] };
  /** Starts another worker on the backend's URL (to replace a killed one). */
  spawnWorker(): Promise<WorkerProcess>;
  /**
   * The SQLite files the workers write to (the lock file, the fenced resource's): a worker stopped inside a write to
   * one keeps its write lock, and every other worker's write there waits until it resumes.
   */
  readonly embeddedFiles: readonly string[];
}

/** Records a fault (or its end) in the history, as of `at` (now unless given). */
export function markFault(
  run: RowRun,
  fault: string,
  phase: "fault" | "fault-end",
  options: { outage: boolean; scope: string; targetHold?: string },
  at = machineNow(),
): number {
  run.log.add({ type: phase, at, fault, ...options });
  return at;
}

/** A holder a fault is injected into: its process, its hold, and its tokens by key (`undefined`: the row's one key). */
export interface Holder {
  readonly worker: WorkerProcess;
  readonly hold: string;
  readonly tokens: ReadonlyMap<string | undefined, bigint>;
}

/**
 * The next critical section a live, direct (not proxied) worker enters, with its tokens. On a semaphore row, one of the
 * largest grants: a fault to its holder strands most permits, so the others can go on only once those are freed.
 */
export async function nextHolder(run: RowRun, timeoutMs = 10_000): Promise<Holder | undefined> {
  const eligible = (locker: string) => run.workers.find((w) => w.name === processOf(locker) && w.alive && w !== run.proxied?.worker);
  const acquiredOf = (hold: string) => run.log.events.findLast((event): event is Of<"acquired"> => event.type === "acquired" && event.hold === hold);
  const largest = run.primitive === "semaphore" ? Math.max(...run.settings.permitCounts) : 1;
  const start = await run.log.next(
    (event): event is Of<"cs-start"> => event.type === "cs-start" && eligible(event.worker) !== undefined && (acquiredOf(event.hold)?.count ?? 1) >= largest,
    timeoutMs,
  );
  if (start === undefined) return undefined;
  const acquired = acquiredOf(start.hold);
  const worker = eligible(start.worker);
  if (acquired === undefined || worker === undefined) return undefined;
  const tokens = new Map(
    run.log.events.flatMap((event) => (event.type === "acquired" && event.hold === start.hold ? [[event.key, BigInt(event.token)] as const] : [])),
  );
  return { worker, hold: start.hold, tokens };
}

/**
 * Permits held right now, as the history tells: grants acquired and not yet released, given up or lost, by processes
 * other than `except` that are still alive.
 */
export function permitsHeldByOthers(run: RowRun, except: string): number {
  const held = new Map<string, number>();
  for (const event of run.log.events) {
    if (event.type === "acquired" && processOf(event.worker) !== except) held.set(event.hold, event.count ?? 1);
    else if (event.type === "released" || event.type === "release-failed" || event.type === "lost") held.delete(event.hold);
  }
  const alive = (hold: string) => run.workers.some((w) => w.alive && w.name === processOf(lockerOf(hold)));
  return [...held].reduce((sum, [hold, count]) => sum + (alive(hold) ? count : 0), 0);
}
