import type { SqlDialectName } from "../sql-dialect-name.js";
import { WAITER_CLAIM_MS } from "../waiting/wait-in-line.js";
import type { LockStatements } from "./lock-statements.js";
import { MYSQL_FLAVOR } from "./mysql-flavor.js";
import { MysqlLockStatements } from "./mysql-lock-statements.js";
import { POSTGRES_FLAVOR } from "./postgres-flavor.js";
import { PostgresLockStatements } from "./postgres-lock-statements.js";
import { ReturningLockStatements } from "./returning-lock-statements.js";
import { SQLITE_FLAVOR } from "./sqlite-flavor.js";
import { WaiterQueue } from "./waiter-queue.js";

/** The dialect's statements on lock table `table`, each with the table's line of waiters. */
export function dialectStatements(dialect: SqlDialectName, table: string): LockStatements {
  if (dialect === "mysql") return new MysqlLockStatements(table, new WaiterQueue(table, MYSQL_FLAVOR, WAITER_CLAIM_MS));
  if (dialect === "postgres") return new PostgresLockStatements(table, new WaiterQueue(table, POSTGRES_FLAVOR, WAITER_CLAIM_MS));
  return new ReturningLockStatements(table, SQLITE_FLAVOR, new WaiterQueue(table, SQLITE_FLAVOR, WAITER_CLAIM_MS));
}
