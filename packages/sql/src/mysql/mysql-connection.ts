import type { LockUrl } from "@distlock/core/driver";
import { Kysely, MysqlDialect } from "kysely";
import { type ClientLibraryRequest, loadClientLibrary } from "../connection/load-client-library.js";
import type { SqlConnection } from "../connection/sql-connection.js";
import { urlServer } from "../connection/url-server.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import type { AnyKysely } from "../table/any-kysely.js";
import { BoundedMysqlPool } from "./bounded-mysql-pool.js";
import type { Mysql2ConnectionOptions, Mysql2Module, Mysql2Pool, Mysql2PoolOptions } from "./mysql-client-api.js";

const DEFAULT_MYSQL_PORT = 3306;

/** A pool of our own from a `mysql://`/`mariadb://` URL, created on first use once `mysql2` is loaded. */
export function openMysqlUrl(url: LockUrl, options: ResolvedSqlLockOptions, request: ClientLibraryRequest): SqlConnection {
  const poolOptions: Mysql2PoolOptions = { ...mysqlUrlConfig(url, options), connectionLimit: options.poolSize, waitForConnections: true };
  const mysql2 = loadClientLibrary<Mysql2Module>("mysql2", request);
  const createPool = async () => boundedPool((await mysql2).createPool(poolOptions), options, true);
  const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool: createPool }) });
  return { db, openListenClient: undefined, ready: () => mysql2.then(() => undefined), close: () => db.destroy() };
}

/** The settings of every connection opened from a `mysql://`/`mariadb://` URL. */
export function mysqlUrlConfig(url: LockUrl, options: ResolvedSqlLockOptions): Mysql2ConnectionOptions {
  return {
    ...urlServer(url, DEFAULT_MYSQL_PORT),
    connectTimeout: options.connectTimeoutMs,
    enableKeepAlive: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: "utf8mb4",
    timezone: "Z",
  };
}

/** Statements through the caller's mysql2 pool, which `close()` leaves open. */
export function openMysqlPool(pool: Mysql2Pool, options: ResolvedSqlLockOptions): SqlConnection {
  const db: AnyKysely = new Kysely({ dialect: new MysqlDialect({ pool: boundedPool(pool, options, false) }) });
  return { db, openListenClient: undefined, ready: async () => undefined, close: () => db.destroy() };
}

/** `owned` pools are ended by `close()`. */
function boundedPool(pool: Mysql2Pool, options: ResolvedSqlLockOptions, owned: boolean): BoundedMysqlPool {
  return new BoundedMysqlPool(pool, { acquireTimeoutMs: options.connectTimeoutMs, queryTimeoutMs: options.queryTimeoutMs, ends: owned });
}
