import type { BenchTarget } from "../harness/index.js";
import {
  ADVISORY_FLOOR,
  DISTLOCK_MARIADB_SESSION,
  DISTLOCK_NOTIFY,
  DISTLOCK_POLLING,
  DISTLOCK_SESSION,
  GET_LOCK_FLOOR,
  TABLE_STATEMENT_REPLAY,
} from "./sql-lock-subjects.js";

/** Issue 6's targets for the SQL backend on PostgreSQL (table mode's as issue 39 restated it), and issue 22's for session mode (PostgreSQL and MariaDB). */
export const SQL_TARGETS: readonly BenchTarget[] = [
  {
    claim: "table mode: uncontended ≥ 0.9× its own statements replayed on a bare client",
    value: { table: "postgres-uncontended", subject: DISTLOCK_NOTIFY.name, metric: "ops/s" },
    versus: { subjects: [TABLE_STATEMENT_REPLAY.name], paired: true },
    min: 0.9,
  },
  {
    claim: "session mode: uncontended ≥ 0.9× the pg_try_advisory_lock floor",
    value: { table: "postgres-uncontended", subject: DISTLOCK_SESSION.name, metric: "ops/s" },
    versus: { subjects: [ADVISORY_FLOOR.name], paired: true },
    min: 0.9,
  },
  {
    claim: "MariaDB session mode: uncontended ≥ 0.9× the GET_LOCK floor",
    value: { table: "mariadb-uncontended", subject: DISTLOCK_MARIADB_SESSION.name, metric: "ops/s" },
    versus: { subjects: [GET_LOCK_FLOOR.name], paired: true },
    min: 0.9,
  },
  {
    claim: "session mode, W=16: FIFO fairness min/max ≥ 0.8",
    value: { table: "postgres-contended-w16", subject: DISTLOCK_SESSION.name, metric: "fairness min/max" },
    min: 0.8,
  },
  {
    claim: "W=16: hand-off p50 with LISTEN/NOTIFY ≤ ⅓ of polling's",
    value: { table: "postgres-contended-w16", subject: DISTLOCK_NOTIFY.name, metric: "hand-off p50 ms" },
    versus: { subjects: [DISTLOCK_POLLING.name] },
    max: 1 / 3,
  },
  {
    claim: "hand-off p50 to a parked waiter with LISTEN/NOTIFY ≤ ⅓ of polling's",
    value: { table: "postgres-parked-hand-off", subject: DISTLOCK_NOTIFY.name, metric: "hand-off p50 ms" },
    versus: { subjects: [DISTLOCK_POLLING.name] },
    max: 1 / 3,
  },
];
