import type { SqliteDatabase } from "kysely";

/** A better-sqlite3 database of our own: what kysely calls, and pragmas. */
export interface BetterSqlite3Database extends SqliteDatabase {
  /** Runs a `PRAGMA` statement. */
  pragma(source: string): unknown;
}

/** The `better-sqlite3` module's default export: the database class. */
export type BetterSqlite3Module = new (filename: string, options: { timeout: number }) => BetterSqlite3Database;
