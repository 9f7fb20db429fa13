import { randomUUID } from "node:crypto";
import type { Lock } from "@distlock/core";
import { fencedUpdate } from "@distlock/fence/sql";
import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from "kysely";
import { createPool } from "mysql2";
import pg from "pg";
import { asPausedHolder, type FencedResource, type FenceTarget, type FenceWrite, fenceWrite } from "./fenced-resource.js";

/** One row per lock key: the fenced UPDATE sets its token, bumps `seq` and names the write. */
export const RESOURCE_TABLE = "fenced_resource";
/** What a trigger logs for every accepted write (the UPDATE's new row), so a writer can read its own `seq` back. */
export const WRITES_TABLE = "fenced_writes";

/** How long a worker waits for SQLite's write lock (a writer may be SIGSTOPped while it holds it). */
const SQLITE_BUSY_TIMEOUT_MS = 30_000;

type SqlTarget = Extract<FenceTarget, { kind: "sql" }>;

// biome-ignore lint/suspicious/noExplicitAny: the two tables are named at run time.
export type FenceDb = Kysely<any>;

/** A kysely instance on the resource's database, over one connection (no timeouts: the resource's server is never faulted). */
export function openSqlDb(target: SqlTarget): FenceDb {
  switch (target.dialect) {
    case "postgres": {
      const pool = new pg.Pool({ connectionString: target.url, max: 1 });
      pool.on("error", () => undefined); // an idle client told of the server's shutdown at the end of a run
      return new Kysely({ dialect: new PostgresDialect({ pool }) });
    }
    case "mysql":
      return new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: target.url, connectionLimit: 1 }) }) });
    case "sqlite":
      return new Kysely({ dialect: new SqliteDialect({ database: new Database(target.url, { timeout: SQLITE_BUSY_TIMEOUT_MS }) }) });
  }
}

/**
 * A row written with `fencedUpdate`: one autocommitted UPDATE that stores the token, increments `seq` and sets the
 * write's id, only where the stored token is not larger. No transaction spans two statements, so a writer SIGSTOPped
 * mid-write holds no row lock on PostgreSQL or MariaDB. The accepted write's `seq` is read back from the log its
 * trigger wrote in the same statement.
 */
export class SqlFencedResource implements FencedResource {
  readonly #db: FenceDb;

  constructor(target: SqlTarget) {
    this.#db = openSqlDb(target);
  }

  write(lock: Lock): Promise<FenceWrite> {
    return fenceWrite(async () => {
      const writeId = randomUUID();
      const set = { seq: sql`${sql.ref("seq")} + 1`, write_id: writeId };
      const { updatedRows } = await fencedUpdate(this.#db, asPausedHolder(lock), { table: RESOURCE_TABLE, where: { resource_key: lock.key }, set });
      if (updatedRows !== 1n) throw new Error(`the fenced resource has no row for ${lock.key} (updated ${updatedRows})`);
      const logged = await this.#db.selectFrom(WRITES_TABLE).select("seq").where("write_id", "=", writeId).executeTakeFirstOrThrow();
      return Number(logged.seq);
    });
  }

  close(): Promise<void> {
    return this.#db.destroy();
  }
}
