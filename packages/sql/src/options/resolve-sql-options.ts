import { InvalidConfigError, MAX_DURATION_MS } from "@distlock/core";
import { type LockUrl, parseLockUrl } from "@distlock/core/driver";
import type { SqliteDatabase } from "kysely";
import type { Mysql2Pool } from "../clients/mysql2-api.js";
import type { PgPool } from "../clients/pg-api.js";
import { SQL_DIALECT_NAMES, type SqlDialectName } from "../sql-dialect-name.js";
import type { AnyKysely } from "../statements/lock-statements.js";
import { DEFAULT_SQL_LOCK_PROVIDER_OPTIONS, type SqlLockProviderOptions } from "./sql-lock-provider-options.js";
import { validateTableName } from "./validate-table-name.js";

/** Where the provider's connections come from; `owned` ones are closed by the provider. */
export type SqlSource =
  | { readonly kind: "url"; readonly dialect: SqlDialectName; readonly url: LockUrl; readonly field: string }
  | { readonly kind: "kysely"; readonly dialect: SqlDialectName; readonly db: AnyKysely; readonly pgPool: PgPool | undefined }
  | { readonly kind: "pgPool"; readonly dialect: "postgres"; readonly pool: PgPool }
  | { readonly kind: "mysqlPool"; readonly dialect: "mysql"; readonly pool: Mysql2Pool }
  | { readonly kind: "sqliteDatabase"; readonly dialect: "sqlite"; readonly database: SqliteDatabase };

type Settings = typeof DEFAULT_SQL_LOCK_PROVIDER_OPTIONS;

/** Options after validation: one source, every setting present. */
export interface ResolvedSqlOptions extends Readonly<Settings> {
  readonly source: SqlSource;
  readonly holderLabel: string | undefined;
}

const SOURCES = ["url", "kysely", "pgPool", "mysqlPool", "sqliteDatabase"] as const;
const NUMBER_SETTINGS = ["poolSize", "connectTimeoutMs", "queryTimeoutMs", "busyTimeoutMs", "purgeIntervalMs", "purgeIdleAfterMs"] as const;
const BOOLEAN_SETTINGS = ["migrate", "listen", "preparedStatements"] as const;
/** Settings that may also be given as URL query parameters. */
const URL_PARAMETERS = new Set<string>(["table", ...NUMBER_SETTINGS, ...BOOLEAN_SETTINGS]);
const KNOWN_OPTIONS = new Set<string>([...SOURCES, "dialect", "holderLabel", ...URL_PARAMETERS]);
/** Settings where 0 means "off". */
const ZERO_ALLOWED = new Set<string>(["purgeIntervalMs"]);

/**
 * Validates `SqlLockProviderOptions` before anything connects; errors name the field as `<prefix>.<name>`
 * (`url.<param>` for a URL query parameter). URL parameters fill in settings the options leave out.
 */
export function resolveSqlOptions(options: SqlLockProviderOptions, prefix = "options"): ResolvedSqlOptions {
  if (typeof options !== "object" || options === null) throw new InvalidConfigError(prefix, "must be an object");
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(name)) throw new InvalidConfigError(`${prefix}.${name}`, "is not an option of the SQL backend");
  }
  const source = resolveSource(options, prefix);
  const fromUrl = source.kind === "url" ? settingsFromUrl(source.url) : {};
  const merged: Record<string, unknown> = { ...DEFAULT_SQL_LOCK_PROVIDER_OPTIONS, ...fromUrl, ...withoutUndefined(options) };
  const field = (name: string) => (name in fromUrl && (options as Record<string, unknown>)[name] === undefined ? `url.${name}` : `${prefix}.${name}`);
  const table = validateTableName(merged.table, field("table"));
  for (const name of NUMBER_SETTINGS) checkDuration(merged[name], field(name), ZERO_ALLOWED.has(name));
  for (const name of BOOLEAN_SETTINGS) {
    if (typeof merged[name] !== "boolean") throw new InvalidConfigError(field(name), "must be true or false");
  }
  if (options.holderLabel !== undefined && typeof options.holderLabel !== "string") throw new InvalidConfigError(`${prefix}.holderLabel`, "must be a string");
  const settings = Object.fromEntries(Object.keys(DEFAULT_SQL_LOCK_PROVIDER_OPTIONS).map((name) => [name, merged[name]])) as Settings;
  return Object.freeze({ ...settings, table, source, holderLabel: options.holderLabel });
}

function resolveSource(options: SqlLockProviderOptions, prefix: string): SqlSource {
  const given = SOURCES.filter((name) => options[name] !== undefined && !(name === "pgPool" && options.kysely !== undefined));
  if (given.length !== 1) {
    throw new InvalidConfigError(prefix, `give exactly one of ${SOURCES.join(", ")} (got ${given.length === 0 ? "none" : given.join(" and ")})`);
  }
  const dialect = options.dialect;
  if (dialect !== undefined && !SQL_DIALECT_NAMES.includes(dialect))
    throw new InvalidConfigError(`${prefix}.dialect`, `must be one of ${SQL_DIALECT_NAMES.join(", ")}`);
  const expectDialect = (implied: SqlDialectName) => {
    if (dialect !== undefined && dialect !== implied)
      throw new InvalidConfigError(`${prefix}.dialect`, `"${dialect}" does not match the ${implied} connection given`);
  };
  switch (given[0]) {
    case "url": {
      const url = typeof options.url === "string" ? parseLockUrl(options.url) : (options.url as LockUrl);
      if (url.backend !== "postgres" && url.backend !== "mysql" && url.backend !== "sqlite") {
        throw new InvalidConfigError("url.scheme", `"${url.scheme}:" is not a SQL URL; use postgres://, mysql://, mariadb:// or sqlite:<file>`);
      }
      expectDialect(url.backend);
      if (url.backend === "sqlite" && url.path === "") throw new InvalidConfigError("url.path", "sqlite: needs a file path, e.g. sqlite:./locks.sqlite");
      return { kind: "url", dialect: url.backend, url, field: `${prefix}.url` };
    }
    case "kysely":
      if (dialect === undefined) throw new InvalidConfigError(`${prefix}.dialect`, `is required with kysely: one of ${SQL_DIALECT_NAMES.join(", ")}`);
      if (options.pgPool !== undefined && dialect !== "postgres")
        throw new InvalidConfigError(`${prefix}.pgPool`, "only serves LISTEN/NOTIFY for the postgres dialect");
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

function settingsFromUrl(url: LockUrl): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, text] of url.params) {
    if (!URL_PARAMETERS.has(name))
      throw new InvalidConfigError(`url.${name}`, `is not a parameter of ${url.scheme}: URLs; known: ${[...URL_PARAMETERS].join(", ")}`);
    if ((NUMBER_SETTINGS as readonly string[]).includes(name)) settings[name] = /^\d+$/.test(text) ? Number(text) : text;
    else if ((BOOLEAN_SETTINGS as readonly string[]).includes(name))
      settings[name] = text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : text;
    else settings[name] = text;
  }
  return settings;
}

function checkDuration(value: unknown, field: string, zeroAllowed: boolean): void {
  const valid = typeof value === "number" && Number.isSafeInteger(value) && value <= MAX_DURATION_MS && (value > 0 || (zeroAllowed && value === 0));
  if (!valid) throw new InvalidConfigError(field, `must be a whole number from ${zeroAllowed ? 0 : 1} to ${MAX_DURATION_MS}`);
}

function withoutUndefined(options: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
