import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { sqlContendedRow } from "./sql-contended-scenario.js";
import { ADVISORY_FLOOR, DISTLOCK_NOTIFY, DISTLOCK_POLLING, DISTLOCK_PREPARED, DISTLOCK_SQLITE } from "./sql-lock-subjects.js";
import { sqlParkedHandOffScenario } from "./sql-parked-hand-off-scenario.js";
import { sqlUncontendedScenario } from "./sql-uncontended-scenario.js";

const HAND_OFF_WORKERS = 16;
const PROCESSES = 4;

/** PostgreSQL (one server started for the run) and SQLite (a file in a temp dir). */
export const SQL_SCENARIOS: ScenarioGroup = {
  name: "SQL (PostgreSQL on 127.0.0.1, SQLite file in a temp dir)",
  async run(): Promise<BenchTable[]> {
    const tables: BenchTable[] = [];
    const server = await startPostgres();
    try {
      tables.push(
        await sqlUncontendedScenario("PostgreSQL uncontended", server.url, [ADVISORY_FLOOR, DISTLOCK_NOTIFY, DISTLOCK_PREPARED], ADVISORY_FLOOR.name),
      );
      const shape = { processes: PROCESSES, workers: HAND_OFF_WORKERS, keyPerProcess: false };
      tables.push({
        title: `PostgreSQL contended hand-off: W = ${HAND_OFF_WORKERS} workers over ${PROCESSES} processes, one key, empty critical section`,
        rows: [
          await sqlContendedRow(server.url, DISTLOCK_POLLING, shape),
          await sqlContendedRow(server.url, DISTLOCK_NOTIFY, shape),
          await sqlContendedRow(server.url, DISTLOCK_PREPARED, shape),
        ],
        baseline: DISTLOCK_POLLING.name,
        ratioOf: "hand-off p50 ms",
        notes: [
          "- hand-off: from the start of the holder's release to the next holder's acquire, when the holder changes",
          "- the releasing worker loops straight back into acquire and usually wins, so polling's few hand-offs are the lucky ones",
        ],
      });
      tables.push(await sqlParkedHandOffScenario(server.url, [DISTLOCK_POLLING, DISTLOCK_NOTIFY], DISTLOCK_POLLING.name));
    } finally {
      await server.close();
    }
    const dir = mkdtempSync(join(tmpdir(), "distlock-bench-sqlite-"));
    try {
      const url = `sqlite:${join(dir, "bench.sqlite")}`;
      tables.push(await sqlUncontendedScenario("SQLite, one process", url, [DISTLOCK_SQLITE], DISTLOCK_SQLITE.name));
      tables.push({
        title: "SQLite across processes: one file, every worker loops acquire+release (own key per process, then one shared key)",
        rows: [
          await sqlContendedRow(url, DISTLOCK_SQLITE, { processes: 1, workers: 1, keyPerProcess: true }),
          await sqlContendedRow(url, DISTLOCK_SQLITE, { processes: PROCESSES, workers: PROCESSES, keyPerProcess: true }),
          await sqlContendedRow(url, DISTLOCK_SQLITE, { processes: PROCESSES, workers: PROCESSES, keyPerProcess: false }),
        ],
        baseline: DISTLOCK_SQLITE.name,
        ratioOf: "acq/s",
        notes: ["- rows 1–2: one key per process (throughput of the shared file); row 3: the same 4 processes on one shared key (polling)"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return tables;
  },
};
