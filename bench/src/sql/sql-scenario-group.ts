import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMariadb, startPostgres } from "@distlock/test-servers";
import type { BenchTable, ScenarioGroup } from "../harness/index.js";
import { contendedSweep, measureContended, uncontendedScenario, uncontendedTables } from "../harness/index.js";
import { PgWriteCounter } from "./pg-write-counter.js";
import {
  ADVISORY_FLOOR,
  DISTLOCK_MARIADB_SESSION,
  DISTLOCK_NOTIFY,
  DISTLOCK_POLLING,
  DISTLOCK_PREPARED,
  DISTLOCK_SESSION,
  DISTLOCK_SQLITE,
  GET_LOCK_FLOOR,
  TABLE_STATEMENT_REPLAY,
} from "./sql-lock-subjects.js";
import { sqlParkedHandOffScenario } from "./sql-parked-hand-off-scenario.js";
import { SQL_TARGETS } from "./sql-targets.js";

const PROCESSES = 4;
const SUBJECTS_MODULE = new URL("./sql-lock-subjects.js", import.meta.url).href;
const KEY_PREFIX = "bench:contended:";
const UNCONTENDED = { keyPrefix: "bench:uncontended:", iterations: 3_000, warmUp: 300, rounds: 6 };

/** PostgreSQL and MariaDB (one server each, started for the run) and SQLite (a file in a temp dir). */
export const SQL_SCENARIOS: ScenarioGroup = {
  name: "SQL (PostgreSQL and MariaDB on 127.0.0.1, SQLite file in a temp dir)",
  targets: SQL_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const tables: BenchTable[] = [];
    const server = await startPostgres();
    try {
      const target = server.url;
      const subjects = [ADVISORY_FLOOR, TABLE_STATEMENT_REPLAY, DISTLOCK_NOTIFY, DISTLOCK_PREPARED, DISTLOCK_SESSION];
      const counter = new PgWriteCounter(target);
      tables.push(
        ...(await uncontendedTables({
          system: "PostgreSQL",
          id: "postgres",
          target,
          subjects,
          baseline: ADVISORY_FLOOR.name,
          counter,
          scale,
          ...UNCONTENDED,
          // Table mode against the replay of its own statements, round by round: the two differ by ~10 %, less than a
          // burst of load moves the rows' medians (0.89–0.92 in two full runs).
          iterations: 6_000,
          rounds: 12,
          warmUp: 1_000,
          // Session mode against the advisory-lock floor too: two full runs 15 minutes apart read its rows' medians 0.56×
          // and 0.86× of the floor's.
          pairedFor: [DISTLOCK_NOTIFY.name, DISTLOCK_SESSION.name],
        })),
      );
      tables.push(
        ...(await contendedSweep({
          scale,
          system: "PostgreSQL",
          id: "postgres",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: KEY_PREFIX,
          subjects: [DISTLOCK_POLLING, DISTLOCK_NOTIFY, DISTLOCK_PREPARED, DISTLOCK_SESSION],
          counter: new PgWriteCounter(target),
          workerCounts: [4, 16, 64],
          ratioOf: "hand-off p50 ms",
          baseline: DISTLOCK_POLLING.name,
          notes: ["- a free key goes to the first live waiter in the server-side line, so a releasing worker that loops back queues behind the others"],
        })),
      );
      tables.push(...(await sqlParkedHandOffScenario(target, [DISTLOCK_POLLING, DISTLOCK_NOTIFY], DISTLOCK_POLLING.name, scale)));
    } finally {
      await server.close();
    }
    const mariadb = await startMariadb();
    try {
      const target = mariadb.userUrl;
      tables.push(
        // Round by round: two runs 15 minutes apart read the rows' medians 1.84× and 0.81× of the floor's.
        ...(await uncontendedTables({
          system: "MariaDB",
          id: "mariadb",
          target,
          subjects: [GET_LOCK_FLOOR, DISTLOCK_MARIADB_SESSION],
          baseline: GET_LOCK_FLOOR.name,
          scale,
          ...UNCONTENDED,
          rounds: 12,
          pairedFor: DISTLOCK_MARIADB_SESSION.name,
        })),
      );
      tables.push(
        ...(await contendedSweep({
          scale,
          system: "MariaDB",
          id: "mariadb",
          target,
          subjectsModule: SUBJECTS_MODULE,
          keyPrefix: KEY_PREFIX,
          subjects: [DISTLOCK_MARIADB_SESSION],
          workerCounts: [4, 16],
          ratioOf: "hand-off p50 ms",
          baseline: DISTLOCK_MARIADB_SESSION.name,
          notes: ["- waiters queue in GET_LOCK on sessions of their own; MariaDB grants them in arrival order"],
        })),
      );
    } finally {
      await mariadb.close();
    }
    const dir = mkdtempSync(join(tmpdir(), "distlock-bench-sqlite-"));
    try {
      const target = `sqlite:${join(dir, "bench.sqlite")}`;
      tables.push(
        await uncontendedScenario({
          system: "SQLite",
          id: "sqlite",
          target,
          subjects: [DISTLOCK_SQLITE],
          baseline: DISTLOCK_SQLITE.name,
          scale,
          ...UNCONTENDED,
        }),
      );
      const run = { target, subjectsModule: SUBJECTS_MODULE, keyPrefix: KEY_PREFIX, scale };
      tables.push({
        id: "sqlite-processes",
        title: "SQLite across processes: one file, every worker loops acquire+release (own key per process, then one shared key)",
        rows: [
          await measureContended(run, DISTLOCK_SQLITE, { processes: 1, workers: 1, keyPerProcess: true }),
          await measureContended(run, DISTLOCK_SQLITE, { processes: PROCESSES, workers: PROCESSES, keyPerProcess: true }),
          await measureContended(run, DISTLOCK_SQLITE, { processes: PROCESSES, workers: PROCESSES, keyPerProcess: false }),
        ],
        baseline: DISTLOCK_SQLITE.name,
        ratioOf: "acq/s",
        notes: [
          "- rows 1–2: one key per process (throughput of the shared file); row 3: the same 4 processes on one shared key (polling, every hand-off goes to the first waiter in line)",
        ],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return tables;
  },
};
