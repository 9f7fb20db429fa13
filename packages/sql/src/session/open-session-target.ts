import { loadClientLibrary } from "../connection/load-client-library.js";
import type { Mysql2Module } from "../mysql/mysql-client-api.js";
import { mysqlUrlConfig } from "../mysql/mysql-connection.js";
import { mysqlSessionDialect } from "../mysql/mysql-session-dialect.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import type { PgModule } from "../postgres/postgres-client-api.js";
import { postgresUrlConfig } from "../postgres/postgres-connection.js";
import { postgresSessionDialect } from "../postgres/postgres-session-dialect.js";
import type { SessionTarget } from "./session-lock-driver.js";

/** First TCP keepalive probe of an idle session connection (the client then notices a vanished server within the OS's probe schedule). */
export const SESSION_KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/** The database a session-mode provider connects to (its options were checked: a postgres or mysql `url`). */
export function openSessionTarget(options: ResolvedSqlLockOptions): SessionTarget {
  const { source } = options;
  if (source.kind !== "url") throw new Error("session mode needs a url source");
  const { url } = source;
  const request = { field: source.field, neededBy: `${url.scheme}: URLs` };
  const host = url.hosts[0];
  const identity = `${source.dialect} ${host?.host}:${host?.port} ${url.path} ${url.username ?? ""} ${options.table}`;
  const common = { table: options.table, urlField: source.field, keepAliveInitialDelayMs: SESSION_KEEPALIVE_INITIAL_DELAY_MS };
  if (source.dialect === "mysql") {
    const mysql2 = loadClientLibrary<Mysql2Module>("mysql2", request);
    const dialect = mysqlSessionDialect(mysql2, { ...common, config: mysqlUrlConfig(url, options), queryTimeoutMs: options.queryTimeoutMs });
    // GET_LOCK names are server-wide (advisory locks are per database): the database is part of the lock's name.
    return { dialect, identity, lockNamespace: `${url.path}.${options.table}`, redacted: url.redacted, loaded: mysql2.then(() => undefined) };
  }
  const pg = loadClientLibrary<PgModule>("pg", request);
  const dialect = postgresSessionDialect(pg, { ...common, config: postgresUrlConfig(url, options) });
  return { dialect, identity, lockNamespace: options.table, redacted: url.redacted, loaded: pg.then(() => undefined) };
}
