import { FenceServers } from "../fence/fence-servers.js";
import type { RowResult } from "../runner/row-result.js";
import type { RowSettings } from "../runner/row-settings.js";
import { runRow } from "../runner/run-row.js";
import { type BackendName, startBackend } from "./backend-fixture.js";
import type { FaultName } from "./fault-name.js";

/** Which rows to run and how hard. */
export interface MatrixOptions {
  readonly backends: readonly BackendName[];
  /** Only these faults (each backend still runs only the faults that apply to it). @default every fault */
  readonly faults?: readonly FaultName[];
  readonly settings: RowSettings;
  /** Called after each row. */
  readonly onRow?: (row: RowResult) => void;
}

/** Runs the matrix backend by backend, each on fresh servers; each kind of fenced resource has its own server for the whole run. */
export async function runMatrix(options: MatrixOptions): Promise<RowResult[]> {
  await using fences = new FenceServers();
  const rows: RowResult[] = [];
  for (const backend of options.backends) {
    await using fixture = await startBackend(backend);
    for (const fault of fixture.faults) {
      if (options.faults !== undefined && !options.faults.includes(fault)) continue;
      const row = await runRow(fixture, fault, options.settings, await fences.get(fixture.fence));
      rows.push(row);
      options.onRow?.(row);
    }
  }
  return rows;
}
