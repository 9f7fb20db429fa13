import type { LockUrl } from "@distlock/core";
import { Kysely, MysqlDialect } from "kysely";
import { createPool, type Pool } from "mysql2";
import type { ResolvedSqlOptions } from "../options/resolve-sql-options.js";
import type { AnyKysely } from "../statements/lock-statements.js";
import { BoundedMysqlPool } from "./bounded-mysql-pool.js";
import type { SqlConnection } from "./sql-connection.js";

const DEFAULT_MYSQL_PORT = 3306;

/** A pool of our own from a `mysql://`/`mariadb://` URL. */
export function openMysqlUrl(url: LockUrl, options: ResolvedSqlOptions): SqlConnection {
  const host = url.hosts[0];
  const pool = createPool({
    host: host?.host,
    port: host?.port ?? DEFAULT_MYSQL_PORT,
    user: url.username,
    password: url.password,
    database: url.path || undefined,
    connectionLimit: options.poolSize,
    connectTimeout: options.connectTimeoutMs,
    waitForConnections: true,
    enableKeepAlive: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: "utf8mb4",
    timezone: "Z",
  });
  return openMysql(pool, options, true);
}

/** Statements through a mysql2 pool; `owned` pools are ended by `close()`. */
export function openMysqlPool(pool: Pool, options: ResolvedSqlOptions): SqlConnection {
  return openMysql(pool, options, false);
}

function openMysql(pool: Pool, options: ResolvedSqlOptions, owned: boolean): SqlConnection {
  const bounded = new BoundedMysqlPool(pool, { acquireTimeoutMs: options.connectTimeoutMs, queryTimeoutMs: options.queryTimeoutMs, ends: owned });
  const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool: bounded }) });
  return { db, openListenClient: undefined, close: () => db.destroy() };
}
