import { resolve } from "node:path";
import { Kysely, type SqliteDatabase, SqliteDialect } from "kysely";
import { type ClientLibraryRequest, loadClientLibrary } from "../connection/load-client-library.js";
import type { SqlConnection } from "../connection/sql-connection.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import type { AnyKysely } from "../table/any-kysely.js";
import type { BetterSqlite3Module } from "./sqlite-client-api.js";

/** A file's connection and how many providers of this process use it. */
interface SharedFile {
  readonly db: AnyKysely;
  users: number;
}

/**
 * One connection per SQLite file (and per database object passed in) in this process, shared by its providers, so
 * kysely's connection mutex queues all their statements. Two connections of one process must not both write: a
 * semaphore transaction holds the file's write lock across awaits, and better-sqlite3 waits for a lock synchronously,
 * so a second connection waiting for it would block the very thread that has to commit, until `busyTimeoutMs`.
 */
const sharedFiles = new Map<string, SharedFile>();
const sharedDatabases = new WeakMap<SqliteDatabase, AnyKysely>();

/**
 * A database file opened on first use once `better-sqlite3` is loaded: WAL (readers never block the writer), a busy
 * timeout so processes queue for the write lock, `synchronous=NORMAL` (durable across process crashes). Providers of
 * one process share the file's connection, opened with the first one's `busyTimeoutMs`; the last to close closes it.
 */
export function openSqliteFile(path: string, options: ResolvedSqlLockOptions, request: ClientLibraryRequest): SqlConnection {
  const BetterSqlite3 = loadClientLibrary<BetterSqlite3Module>("better-sqlite3", request);
  const ready = () => BetterSqlite3.then(() => undefined);
  // Every ":memory:" connection is a database of its own.
  const file = path === ":memory:" ? undefined : resolve(path);
  const shared = (file === undefined ? undefined : sharedFiles.get(file)) ?? { db: openFile(BetterSqlite3, path, options), users: 0 };
  if (file !== undefined) sharedFiles.set(file, shared);
  shared.users += 1;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    shared.users -= 1;
    if (shared.users > 0) return;
    if (file !== undefined && sharedFiles.get(file) === shared) sharedFiles.delete(file);
    await shared.db.destroy();
  };
  return { db: shared.db, openListenClient: undefined, ready, close };
}

function openFile(BetterSqlite3: Promise<BetterSqlite3Module>, path: string, options: ResolvedSqlLockOptions): AnyKysely {
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
  return new Kysely({ dialect: new SqliteDialect({ database: open }) });
}

/** The caller's database, used as it is configured and never closed; providers given the same object share one Kysely over it. */
export function openSqliteDatabase(database: SqliteDatabase): SqlConnection {
  let db = sharedDatabases.get(database);
  if (db === undefined) {
    db = new Kysely({ dialect: new SqliteDialect({ database }) });
    sharedDatabases.set(database, db);
  }
  return { db, openListenClient: undefined, ready: async () => undefined, close: async () => undefined };
}
