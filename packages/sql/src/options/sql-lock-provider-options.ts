import type { DriverLockProviderOptions } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import type { SqliteDatabase } from "kysely";
import type { Mysql2Pool } from "../mysql/mysql-client-api.js";
import type { PgPool } from "../postgres/postgres-client-api.js";
import type { AnyKysely } from "../table/any-kysely.js";
import type { SqlDialectName } from "./sql-dialect-name.js";

/** Where a lock lives: a row of the lock table, or the database's own session lock. */
export type SqlLockMode = "table" | "session";

/** Every `SqlLockMode`. */
export const SQL_LOCK_MODES: readonly SqlLockMode[] = Object.freeze(["table", "session"]);

/**
 * Options of `SqlLockProvider`. Give exactly one connection source: `url` (the provider creates and closes
 * its own pool), or `kysely`, `pgPool`, `mysqlPool`, `sqliteDatabase` (yours: the provider never closes them).
 */
export interface SqlLockProviderOptions extends DriverLockProviderOptions {
  /** `postgres://`, `postgresql://`, `mysql://`, `mariadb://` or `sqlite:<file>` (or core's parsed `LockUrl`); the provider owns the connections it opens. */
  url?: string | LockUrl;
  /** An existing Kysely instance you own; needs `dialect`. Release notifications need `pgPool` besides. */
  kysely?: AnyKysely;
  /** The dialect of `kysely`. */
  dialect?: SqlDialectName;
  /** An existing `pg` pool you own; with `listen`, one of its clients is kept for LISTEN while a provider waits. */
  pgPool?: PgPool;
  /** An existing `mysql2` (callback API) pool you own. */
  mysqlPool?: Mysql2Pool;
  /** An existing `better-sqlite3` database you own (its journal mode and busy timeout are left as you set them). */
  sqliteDatabase?: SqliteDatabase;
  /**
   * `"table"`: locks are rows of the lock table (pooler-safe, leases on the database's clock). `"session"`: the
   * database's own locks (PostgreSQL advisory locks, MySQL/MariaDB `GET_LOCK`) held by dedicated connections; the hold
   * lives as long as its connection. Session mode needs `url` and a direct connection (no transaction pooler). @default "table"
   */
  mode?: SqlLockMode;
  /** Lock table name: a plain identifier, never quoted or escaped. @default "distlock_locks" */
  table?: string;
  /** Create or upgrade the lock table on first use; without it call `migrate()` (or `migrateLockTable`) yourself. @default true */
  migrate?: boolean;
  /** Connections in the pool the provider creates from `url` (not SQLite). @default 10 */
  poolSize?: number;
  /** Bound on opening a connection or waiting for a free one in the provider's pool. @default 5000 */
  connectTimeoutMs?: number;
  /** Bound on one statement's round trip (client side), so a stalled server never hangs a call. @default 5000 */
  queryTimeoutMs?: number;
  /** SQLite busy timeout: how long a statement waits for another process's write lock. @default 5000 */
  busyTimeoutMs?: number;
  /** PostgreSQL: wake waiters with LISTEN/NOTIFY instead of polling. @default true */
  listen?: boolean;
  /**
   * PostgreSQL (`url` or `pgPool`): run the lock statements as named prepared statements, parsed and planned
   * once per connection (about twice the throughput). Session state: leave off behind PgBouncer older than
   * 1.21 or without `max_prepared_statements`. @default false
   */
  preparedStatements?: boolean;
  /** How often idle rows are purged (0 disables the timer; `purgeIdleLocks()` still works). @default 600000 */
  purgeIntervalMs?: number;
  /** A row is purged once it has been free or expired for this long. @default 3600000 */
  purgeIdleAfterMs?: number;
}

/** Where the provider's connections come from; `url` ones are opened and closed by the provider. */
export type SqlSource =
  | { readonly kind: "url"; readonly dialect: SqlDialectName; readonly url: LockUrl; readonly field: string }
  | { readonly kind: "kysely"; readonly dialect: SqlDialectName; readonly db: AnyKysely; readonly pgPool: PgPool | undefined }
  | { readonly kind: "pgPool"; readonly dialect: "postgres"; readonly pool: PgPool }
  | { readonly kind: "mysqlPool"; readonly dialect: "mysql"; readonly pool: Mysql2Pool }
  | { readonly kind: "sqliteDatabase"; readonly dialect: "sqlite"; readonly database: SqliteDatabase };

/** The default of every option of `SqlLockProviderOptions` that has one. */
export const DEFAULT_SQL_LOCK_OPTIONS: Readonly<
  Required<
    Pick<
      SqlLockProviderOptions,
      | "mode"
      | "table"
      | "migrate"
      | "poolSize"
      | "connectTimeoutMs"
      | "queryTimeoutMs"
      | "busyTimeoutMs"
      | "listen"
      | "preparedStatements"
      | "purgeIntervalMs"
      | "purgeIdleAfterMs"
    >
  >
> = Object.freeze({
  mode: "table",
  table: "distlock_locks",
  migrate: true,
  poolSize: 10,
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
  busyTimeoutMs: 5_000,
  listen: true,
  preparedStatements: false,
  purgeIntervalMs: 600_000,
  purgeIdleAfterMs: 3_600_000,
});

/** `SqlLockProviderOptions` after validation: every default applied, and the one connection source. */
export type ResolvedSqlLockOptions = typeof DEFAULT_SQL_LOCK_OPTIONS & Readonly<{ source: SqlSource; holderLabel: string | undefined }>;
