import { MYSQL_FLAVOR } from "../mysql/mysql-flavor.js";
import { MysqlLockStatements } from "../mysql/mysql-lock-statements.js";
import type { SqlDialectName } from "../options/sql-dialect-name.js";
import { POSTGRES_FLAVOR } from "../postgres/postgres-flavor.js";
import { PostgresLockStatements } from "../postgres/postgres-lock-statements.js";
import { SQLITE_FLAVOR } from "../sqlite/sqlite-flavor.js";
import { WAITER_CLAIM_MS } from "../waiting/wait-in-line.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";
import type { LockStatements } from "./lock-statements.js";
import { ReturningLockStatements } from "./returning-lock-statements.js";
import { WaiterLine } from "./waiter-line.js";

const FLAVORS: Readonly<Record<SqlDialectName, LockSqlFlavor>> = Object.freeze({ postgres: POSTGRES_FLAVOR, mysql: MYSQL_FLAVOR, sqlite: SQLITE_FLAVOR });

/** The SQL fragments in which `dialect` differs from the others. */
export function dialectFlavor(dialect: SqlDialectName): LockSqlFlavor {
  return FLAVORS[dialect];
}

/** The dialect's statements on lock table `table`, each with the table's line of waiters. */
export function dialectStatements(dialect: SqlDialectName, table: string): LockStatements {
  const queue = new WaiterLine(table, FLAVORS[dialect], WAITER_CLAIM_MS);
  if (dialect === "mysql") return new MysqlLockStatements(table, queue);
  if (dialect === "postgres") return new PostgresLockStatements(table, queue);
  return new ReturningLockStatements(table, SQLITE_FLAVOR, queue);
}
