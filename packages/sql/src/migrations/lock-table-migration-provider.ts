import { type Migration, type MigrationProvider, sql } from "kysely";
import type { SqlDialectName } from "../options/sql-dialect-name.js";
import { createPostgresKeySetFunctions } from "../postgres/postgres-key-set-functions.js";
import { createPostgresLockFunctions } from "../postgres/postgres-lock-functions.js";
import { semaphoreTables } from "../semaphore/semaphore-tables.js";
import type { AnyKysely } from "../table/any-kysely.js";
import { waiterTableName } from "../table/waiter-line.js";

interface ColumnTypes {
  key: string;
  secret: string;
  holder: string;
  bigint: string;
  tableOptions: string;
}

/**
 * No index besides the key: every acquire, renew and release updates `expires_at`, and with no index on it
 * PostgreSQL updates stay HOT (in-page, no index writes; fillfactor leaves the room). Purges scan the table.
 * Keys and secrets compare byte for byte: MySQL stores them as VARBINARY (its text collations ignore case and trailing spaces). */
const COLUMN_TYPES: Readonly<Record<SqlDialectName, ColumnTypes>> = Object.freeze({
  postgres: { key: "varchar(256)", secret: "varchar(256)", holder: "varchar(1024)", bigint: "bigint", tableOptions: "with (fillfactor = 50)" },
  mysql: { key: "varbinary(1024)", secret: "varbinary(1024)", holder: "varchar(1024) character set utf8mb4", bigint: "bigint", tableOptions: "" },
  sqlite: { key: "text", secret: "text", holder: "text", bigint: "integer", tableOptions: "" },
});

const CREATE_LOCK_TABLE = "0001_create_lock_table";
const CREATE_WAITER_TABLE = "0002_create_waiter_table";
const CREATE_POSTGRES_FUNCTIONS = "0003_create_postgres_functions";
const SEQUENTIAL_WAITER_TICKETS = "0004_sequential_waiter_tickets";
const CREATE_SEMAPHORE_TABLES = "0005_create_semaphore_tables";

/** Name of the newest migration; a table that recorded it needs no migration run. */
export const LATEST_LOCK_TABLE_MIGRATION = "0006_create_postgres_key_set_functions";

/** The lock table's migrations, in order; each table keeps its own migration history. */
export class LockTableMigrationProvider implements MigrationProvider {
  readonly #table: string;
  readonly #types: ColumnTypes;
  readonly #dialect: SqlDialectName;

  constructor(table: string, dialect: SqlDialectName) {
    this.#table = table;
    this.#dialect = dialect;
    this.#types = COLUMN_TYPES[dialect];
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      [CREATE_LOCK_TABLE]: { up: (db) => this.#createLockTable(db) },
      [CREATE_WAITER_TABLE]: { up: (db) => this.#createWaiterTable(db) },
      // PostgreSQL only; recorded on every dialect so all tables share one history.
      [CREATE_POSTGRES_FUNCTIONS]: { up: (db) => this.#onPostgres(db, createPostgresLockFunctions) },
      // Replaces the functions of tables made before waiter tickets counted up instead of reading the clock.
      [SEQUENTIAL_WAITER_TICKETS]: { up: (db) => this.#onPostgres(db, createPostgresLockFunctions) },
      [CREATE_SEMAPHORE_TABLES]: { up: (db) => this.#createSemaphoreTables(db) },
      [LATEST_LOCK_TABLE_MIGRATION]: { up: (db) => this.#onPostgres(db, createPostgresKeySetFunctions) },
    };
  }

  /** Runs `create` on PostgreSQL only. */
  #onPostgres(db: AnyKysely, create: (db: AnyKysely, table: string) => Promise<void>): Promise<void> {
    return this.#dialect === "postgres" ? create(db, this.#table) : Promise.resolve();
  }

  async #createLockTable(db: AnyKysely): Promise<void> {
    const types = this.#types;
    await db.schema
      .createTable(this.#table)
      .ifNotExists()
      .addColumn("lock_key", sql.raw(types.key), (c) => c.primaryKey())
      .addColumn("owner_secret", sql.raw(types.secret))
      .addColumn("holder", sql.raw(types.holder), (c) => c.notNull())
      .addColumn("hold_count", "integer", (c) => c.notNull())
      .addColumn("fencing_token", sql.raw(types.bigint), (c) => c.notNull())
      .addColumn("expires_at", sql.raw(types.bigint), (c) => c.notNull())
      .modifyEnd(sql.raw(types.tableOptions))
      .execute();
    const floor = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(this.#table)} where lock_key = ''`.execute(db);
    if (Number(floor.rows[0]?.n ?? 0) === 0) {
      await sql`insert into ${sql.table(this.#table)} (lock_key, owner_secret, holder, hold_count, fencing_token, expires_at) values ('', null, '', 0, 0, 0)`.execute(
        db,
      );
    }
  }

  /** The line of waiters (see `WaiterLine`); its primary key serves every lookup, which is always by key. */
  async #createWaiterTable(db: AnyKysely): Promise<void> {
    const types = this.#types;
    await db.schema
      .createTable(waiterTableName(this.#table))
      .ifNotExists()
      .addColumn("lock_key", sql.raw(types.key), (c) => c.notNull())
      .addColumn("waiter_secret", sql.raw(types.secret), (c) => c.notNull())
      .addColumn("ticket", sql.raw(types.bigint), (c) => c.notNull())
      .addColumn("expires_at", sql.raw(types.bigint), (c) => c.notNull())
      .addPrimaryKeyConstraint(`${waiterTableName(this.#table)}_pk`, ["lock_key", "waiter_secret"])
      .execute();
  }

  /**
   * The counting semaphores' tables (see `SemaphoreTables`). The semaphore's own row is updated by every grant, so on
   * PostgreSQL it gets the lock table's fillfactor; grants and places are looked up by name and secret only.
   */
  async #createSemaphoreTables(db: AnyKysely): Promise<void> {
    const types = this.#types;
    const tables = semaphoreTables(this.#table);
    await db.schema
      .createTable(tables.semaphore)
      .ifNotExists()
      .addColumn("name", sql.raw(types.key), (c) => c.primaryKey())
      .addColumn("permits", "integer", (c) => c.notNull())
      .addColumn("fencing_token", sql.raw(types.bigint), (c) => c.notNull())
      .modifyEnd(sql.raw(types.tableOptions))
      .execute();
    await db.schema
      .createTable(tables.holder)
      .ifNotExists()
      .addColumn("name", sql.raw(types.key), (c) => c.notNull())
      .addColumn("owner_secret", sql.raw(types.secret), (c) => c.notNull())
      .addColumn("holder", sql.raw(types.holder), (c) => c.notNull())
      .addColumn("permit_count", "integer", (c) => c.notNull())
      .addColumn("fencing_token", sql.raw(types.bigint), (c) => c.notNull())
      .addColumn("expires_at", sql.raw(types.bigint), (c) => c.notNull())
      .addPrimaryKeyConstraint(`${tables.holder}_pk`, ["name", "owner_secret"])
      .execute();
    await db.schema
      .createTable(tables.waiter)
      .ifNotExists()
      .addColumn("name", sql.raw(types.key), (c) => c.notNull())
      .addColumn("waiter_secret", sql.raw(types.secret), (c) => c.notNull())
      .addColumn("ticket", sql.raw(types.bigint), (c) => c.notNull())
      .addColumn("permit_count", "integer", (c) => c.notNull())
      .addColumn("expires_at", sql.raw(types.bigint), (c) => c.notNull())
      .addPrimaryKeyConstraint(`${tables.waiter}_pk`, ["name", "waiter_secret"])
      .execute();
  }
}
