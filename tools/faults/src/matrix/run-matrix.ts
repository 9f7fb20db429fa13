import { FenceServers } from "../fence/fence-servers.js";
import type { RowResult } from "../runner/row-result.js";
import type { RowSettings } from "../runner/row-settings.js";
import { type RowSubject, runRow } from "../runner/run-row.js";
import { type BackendName, faultsOf, startBackend } from "./backend-fixture.js";
import type { FaultName } from "./fault-name.js";
import { PRIMITIVES, type Primitive } from "./primitive.js";

/** Which rows to run and how hard. */
export interface MatrixOptions {
  readonly backends: readonly BackendName[];
  /** Only these faults (each backend still runs only the faults that apply to it). @default every fault */
  readonly faults?: readonly FaultName[];
  /** Only the rows of these primitives (semaphore rows exist only where `SEMAPHORE_FAULTS` lists the backend). @default both */
  readonly primitives?: readonly Primitive[];
  readonly settings: RowSettings;
  /** Called after each row. */
  readonly onRow?: (row: RowResult) => void;
}

/**
 * Runs the matrix backend by backend, each on fresh servers (started only if it has rows to run): its lock rows, then
 * its semaphore rows; each kind of fenced resource has its own server for the whole run, started on a lock row's first use.
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
    if (rows.length === 0) continue;
    await using fixture = await startBackend(backend);
    for (const { primitive, fault } of rows) {
      const subject: RowSubject = primitive === "lock" ? { primitive, fence: await fences.get(fixture.fence) } : { primitive };
      const row = await runRow(fixture, fault, options.settings, subject);
      results.push(row);
      options.onRow?.(row);
    }
  }
  return results;
}
