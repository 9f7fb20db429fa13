import { openMysqlPool, openMysqlUrl } from "../mysql/mysql-connection.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import { openPostgresPool, openPostgresUrl } from "../postgres/postgres-connection.js";
import { openSqliteDatabase, openSqliteFile } from "../sqlite/sqlite-connection.js";
import type { SqlConnection } from "./sql-connection.js";

/** Builds the connection the options describe; a URL starts loading its client library, nothing is contacted until the first statement. */
export function openSqlConnection(options: ResolvedSqlLockOptions): SqlConnection {
  const { source } = options;
  switch (source.kind) {
    case "url": {
      const request = { field: source.field, neededBy: `${source.url.scheme}: URLs` };
      if (source.dialect === "postgres") return openPostgresUrl(source.url, options, request);
      if (source.dialect === "mysql") return openMysqlUrl(source.url, options, request);
      return openSqliteFile(source.url.path, options, request);
    }
    case "kysely":
      if (source.pgPool !== undefined) return openPostgresPool(source.pgPool, options, source.db);
      return { db: source.db, openListenClient: undefined, ready: async () => undefined, close: async () => undefined };
    case "pgPool":
      return openPostgresPool(source.pool, options);
    case "mysqlPool":
      return openMysqlPool(source.pool, options);
    case "sqliteDatabase":
      return openSqliteDatabase(source.database);
  }
}
