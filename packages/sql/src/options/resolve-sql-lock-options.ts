import { InvalidConfigError, MAX_DURATION_MS } from "@distlock/core";
import { type BackendOptionsSpec, type BackendSetting, backendSettings, type LockUrl, resolveBackendOptions } from "@distlock/core/driver";
import type { SqliteDatabase } from "kysely";
import type { Mysql2Pool } from "../mysql/mysql-client-api.js";
import type { PgPool } from "../postgres/postgres-client-api.js";
import type { AnyKysely } from "../table/any-kysely.js";
import { SQL_DIALECT_NAMES, type SqlDialectName } from "./sql-dialect-name.js";
import {
  DEFAULT_SQL_LOCK_OPTIONS,
  type ResolvedSqlLockOptions,
  SQL_LOCK_MODES,
  type SqlLockMode,
  type SqlLockProviderOptions,
  type SqlSource,
} from "./sql-lock-provider-options.js";
import { validateTableName } from "./validate-table-name.js";

const SOURCES = ["url", "kysely", "pgPool", "mysqlPool", "sqliteDatabase"] as const;

const SQL_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_SQL_LOCK_OPTIONS> = {
  backend: "SQL",
  urlBackends: ["postgres", "mysql", "sqlite"],
  urlSchemes: "postgres://, mysql://, mariadb:// or sqlite:<file>",
  ownOptions: ["kysely", "dialect", "pgPool", "mysqlPool", "sqliteDatabase"],
  settings: {
    mode: backendSettings.text(checkMode) as BackendSetting<SqlLockMode>,
    table: backendSettings.text(validateTableName),
    migrate: backendSettings.boolean,
    poolSize: backendSettings.integer(1, MAX_DURATION_MS),
    connectTimeoutMs: backendSettings.duration(1),
    queryTimeoutMs: backendSettings.duration(1),
    busyTimeoutMs: backendSettings.duration(1),
    listen: backendSettings.boolean,
    preparedStatements: backendSettings.boolean,
    purgeIntervalMs: backendSettings.duration(0),
    purgeIdleAfterMs: backendSettings.duration(1),
  },
  defaults: DEFAULT_SQL_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>`, `url.<param>`), and
 * applies the defaults; URL query parameters fill in what the options leave out.
 */
export function resolveSqlLockOptions(options: SqlLockProviderOptions, optionsField = "options"): ResolvedSqlLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(SQL_LOCK_OPTIONS, options, optionsField);
  const source = resolveSource(options, url, optionsField);
  if (settings.mode === "session") checkSessionSource(source, options.mode === undefined ? "url.mode" : `${optionsField}.mode`);
  return Object.freeze({ ...settings, source, holderLabel });
}

function checkMode(value: unknown, field: string): string {
  if (typeof value !== "string" || !(SQL_LOCK_MODES as readonly string[]).includes(value))
    throw new InvalidConfigError(field, `must be one of ${SQL_LOCK_MODES.join(", ")}`);
  return value;
}

/** Session locks live on connections the provider opens and keeps for them: only a postgres or mysql `url` gives those. */
function checkSessionSource(source: SqlSource, field: string): void {
  if (source.kind !== "url" || source.dialect === "sqlite") {
    const given = source.kind === "url" ? `${source.url.scheme}:` : source.kind;
    throw new InvalidConfigError(field, `"session" needs a postgres:// or mysql:// (mariadb://) url (it opens its own connections), not ${given}`);
  }
}

function resolveSource(options: SqlLockProviderOptions, url: LockUrl | undefined, optionsField: string): SqlSource {
  const given = SOURCES.filter((name) => options[name] !== undefined && !(name === "pgPool" && options.kysely !== undefined));
  if (given.length !== 1) {
    throw new InvalidConfigError(optionsField, `give exactly one of ${SOURCES.join(", ")} (got ${given.length === 0 ? "none" : given.join(" and ")})`);
  }
  const dialect = options.dialect;
  if (dialect !== undefined && !SQL_DIALECT_NAMES.includes(dialect))
    throw new InvalidConfigError(`${optionsField}.dialect`, `must be one of ${SQL_DIALECT_NAMES.join(", ")}`);
  const expectDialect = (implied: SqlDialectName) => {
    if (dialect !== undefined && dialect !== implied)
      throw new InvalidConfigError(`${optionsField}.dialect`, `"${dialect}" does not match the ${implied} connection given`);
  };
  if (url !== undefined) {
    const urlDialect = url.backend as SqlDialectName;
    expectDialect(urlDialect);
    if (urlDialect === "sqlite" && url.path === "") throw new InvalidConfigError("url.path", "sqlite: needs a file path, e.g. sqlite:./locks.sqlite");
    return { kind: "url", dialect: urlDialect, url, field: `${optionsField}.url` };
  }
  switch (given[0]) {
    case "kysely":
      if (dialect === undefined) throw new InvalidConfigError(`${optionsField}.dialect`, `is required with kysely: one of ${SQL_DIALECT_NAMES.join(", ")}`);
      if (options.pgPool !== undefined && dialect !== "postgres")
        throw new InvalidConfigError(`${optionsField}.pgPool`, "only serves LISTEN/NOTIFY for the postgres dialect");
      return { kind: "kysely", dialect, db: options.kysely as AnyKysely, pgPool: options.pgPool };
    case "pgPool":
      expectDialect("postgres");
      return { kind: "pgPool", dialect: "postgres", pool: options.pgPool as PgPool };
    case "mysqlPool":
      expectDialect("mysql");
      return { kind: "mysqlPool", dialect: "mysql", pool: options.mysqlPool as Mysql2Pool };
    default:
      expectDialect("sqlite");
      return { kind: "sqliteDatabase", dialect: "sqlite", database: options.sqliteDatabase as SqliteDatabase };
  }
}
