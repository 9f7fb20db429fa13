import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { ResolvedSqlOptions } from "../options/resolve-sql-options.js";
import type { AnyKysely } from "../statements/lock-statements.js";
import type { SqlConnection } from "./sql-connection.js";

/**
 * A database file of our own, opened on first use: WAL (readers never block the writer), a busy timeout
 * so processes queue for the write lock, `synchronous=NORMAL` (durable across process crashes).
 */
export function openSqliteFile(path: string, options: ResolvedSqlOptions): SqlConnection {
  const open = async () => {
    const database = new BetterSqlite3(path, { timeout: options.busyTimeoutMs });
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
  return { db, openListenClient: undefined, close: () => db.destroy() };
}

/** The caller's database, used as it is configured and never closed. */
export function openSqliteDatabase(database: BetterSqlite3.Database): SqlConnection {
  const db: AnyKysely = new Kysely({ dialect: new SqliteDialect({ database }) });
  return { db, openListenClient: undefined, close: async () => undefined };
}
