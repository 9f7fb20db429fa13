import { Kysely, type SqliteDatabase, SqliteDialect } from "kysely";
import type { BetterSqlite3Module } from "../clients/better-sqlite3-api.js";
import { type ClientLibraryRequest, loadClientLibrary } from "../clients/load-client-library.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import type { AnyKysely } from "../statements/lock-statements.js";
import type { SqlConnection } from "./sql-connection.js";

/**
 * A database file of our own, opened on first use once `better-sqlite3` is loaded: WAL (readers never block the
 * writer), a busy timeout so processes queue for the write lock, `synchronous=NORMAL` (durable across process crashes).
 */
export function openSqliteFile(path: string, options: ResolvedSqlLockOptions, request: ClientLibraryRequest): SqlConnection {
  const BetterSqlite3 = loadClientLibrary<BetterSqlite3Module>("better-sqlite3", request);
  const open = async () => {
    const database = new (await BetterSqlite3)(path, { timeout: options.busyTimeoutMs });
    try {
      database.pragma("journal_mode = WAL");
      database.pragma("synchronous = NORMAL");
      return database;
    } catch (error) {
      database.close();
      throw error;
    }
  };
  const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database: open }) });
  return { db, openListenClient: undefined, ready: () => BetterSqlite3.then(() => undefined), close: () => db.destroy() };
}

/** The caller's database, used as it is configured and never closed. */
export function openSqliteDatabase(database: SqliteDatabase): SqlConnection {
  const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database }) });
  return { db, openListenClient: undefined, ready: async () => undefined, close: async () => undefined };
}
