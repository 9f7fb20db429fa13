import { ServerStartError } from "@distlock/test-servers";
import { FenceServers } from "../fence/fence-servers.js";
import { machineNow } from "../history/history-event.js";
import type { RowResult } from "../runner/row-result.js";
import type { RowSettings } from "../runner/row-settings.js";
import { type RowSubject, runRow } from "../runner/run-row.js";
import { type BackendFixture, type BackendName, faultsOf, startBackend } from "./backend-fixture.js";
import type { FaultName } from "./fault-name.js";
import { PRIMITIVES, type Primitive } from "./primitive.js";

/** Which rows to run and how hard. */
export interface MatrixOptions {
  readonly backends: readonly BackendName[];
  /** Only these faults (each backend still runs only the faults that apply to it). @default every fault */
  readonly faults?: readonly FaultName[];
  /**
   * Only the rows of these primitives (semaphore and multi-key rows exist only where `SEMAPHORE_FAULTS` and
   * `MULTI_KEY_FAULTS` list the backend). @default all
   */
  readonly primitives?: readonly Primitive[];
  readonly settings: RowSettings;
  /** Called after each row, a failed one too. */
  readonly onRow?: (row: RowResult) => void;
}

/** One line saying why a row could not run: the error's first line, and for a server that did not start its last log line. */
function reasonOf(stage: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lastLogLine = error instanceof ServerStartError ? error.logTail.trim().split("\n").at(-1)?.trim() : undefined;
  return `${stage}: ${message.split("\n")[0]}${lastLogLine ? ` (its log ends: ${lastLogLine})` : ""}`;
}

/** The result of a row that could not run to its end. */
function failedRow(backend: BackendName, fault: FaultName, primitive: Primitive, failure: string, startedAt: number): RowResult {
  return {
    backend,
    fault,
    primitive,
    workers: 0,
    operations: 0,
    faultsInjected: 0,
    writesAccepted: 0,
    writesRejected: 0,
    writesFailed: 0,
    staleWrites: 0,
    staleWritesAccepted: 0,
    pausedStaleWritesAccepted: 0,
    violations: [],
    fencedOverlaps: [],
    recoveryMs: null,
    durationMs: machineNow() - startedAt,
    workerFailures: [],
    failure,
  };
}

/**
 * Runs the matrix backend by backend, each on fresh servers (started only if it has rows to run): its lock rows, then
 * its semaphore rows, then its multi-key rows; each kind of fenced resource has its own server for the whole run,
 * started on a lock or multi-key row's first use.
 *
 * A row that cannot run to its end (its servers do not start, its set-up or a fault's injection throws) is a failed row
 * with its reason (`RowResult.failure`), and the matrix goes on: the backend's next row gets fresh servers (the failed
 * one may have left them down or changed), the next backends run as ever.
 */
export async function runMatrix(options: MatrixOptions): Promise<RowResult[]> {
  await using fences = new FenceServers();
  const results: RowResult[] = [];
  for (const backend of options.backends) {
    const rows = (options.primitives ?? PRIMITIVES).flatMap((primitive) =>
      faultsOf(backend, primitive)
        .filter((fault) => options.faults === undefined || options.faults.includes(fault))
        .map((fault) => ({ primitive, fault })),
    );
    let fixture: BackendFixture | undefined;
    try {
      for (const { primitive, fault } of rows) {
        const startedAt = machineNow();
        let stage = "its servers did not start";
        let row: RowResult;
        try {
          fixture ??= await startBackend(backend);
          stage = "the fenced resource's server did not start";
          const subject: RowSubject = primitive === "semaphore" ? { primitive } : { primitive, fence: await fences.get(fixture.fence) };
          stage = "it stopped";
          row = await runRow(fixture, fault, options.settings, subject);
        } catch (error) {
          row = failedRow(backend, fault, primitive, reasonOf(stage, error), startedAt);
          const broken = fixture;
          fixture = undefined;
          await broken?.close().catch(() => undefined);
        }
        results.push(row);
        options.onRow?.(row);
      }
    } finally {
      await fixture?.close();
    }
  }
  return results;
}
