import type { TcpProxy } from "@distlock/test-servers";
import { type HistoryEvent, machineNow, processOf } from "../history/history-event.js";
import type { BackendFixture } from "../matrix/backend-fixture.js";
import type { HistoryLog } from "./history-log.js";
import type { RowSettings } from "./row-settings.js";
import type { WorkerProcess } from "./worker-process.js";

type Of<T extends HistoryEvent["type"]> = Extract<HistoryEvent, { type: T }>;

/** What a fault injector may touch while a row runs. */
export interface RowRun {
  readonly fixture: BackendFixture;
  readonly settings: RowSettings;
  readonly log: HistoryLog;
  /** The key the workers contend for. */
  readonly key: string;
  /** Every worker started so far, killed ones included. */
  readonly workers: readonly WorkerProcess[];
  /** The worker that talks to the backend through `proxies` (network-cut rows only). */
  readonly proxied?: { readonly worker: WorkerProcess; readonly proxies: readonly TcpProxy[] };
  /** Starts another worker on the backend's URL (to replace a killed one). */
  spawnWorker(): Promise<WorkerProcess>;
}

/** Records a fault (or its end) in the history. */
export function markFault(run: RowRun, fault: string, phase: "fault" | "fault-end", options: { outage: boolean; scope: string }): number {
  const at = machineNow();
  run.log.add({ type: phase, at, fault, ...options });
  return at;
}

/** The next critical section a live, direct (not proxied) worker enters, with its token. */
export async function nextHolder(run: RowRun, timeoutMs = 10_000): Promise<{ worker: WorkerProcess; hold: string; token: bigint } | undefined> {
  const eligible = (locker: string) => run.workers.find((w) => w.name === processOf(locker) && w.alive && w !== run.proxied?.worker);
  const start = await run.log.next((event): event is Of<"cs-start"> => event.type === "cs-start" && eligible(event.worker) !== undefined, timeoutMs);
  if (start === undefined) return undefined;
  const acquired = run.log.events.findLast((event): event is Of<"acquired"> => event.type === "acquired" && event.hold === start.hold);
  const worker = eligible(start.worker);
  if (acquired === undefined || worker === undefined) return undefined;
  return { worker, hold: start.hold, token: BigInt(acquired.token) };
}
