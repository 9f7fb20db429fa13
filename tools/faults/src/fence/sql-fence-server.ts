import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addFenceColumn, DEFAULT_FENCE_COLUMN } from "@distlock/fence/sql";
import { startMariadb, startPostgres } from "@distlock/test-servers";
import { sql } from "kysely";
import type { FenceServer, FenceTarget } from "./fenced-resource.js";
import { type FenceDb, openSqlDb, RESOURCE_TABLE, WRITES_TABLE } from "./sql-resource.js";

type SqlTarget = Extract<FenceTarget, { kind: "sql" }>;

const LOG_ACCEPTED = `INSERT INTO ${WRITES_TABLE} (write_id, resource_key, seq, token) VALUES (NEW.write_id, NEW.resource_key, NEW.seq, NEW.${DEFAULT_FENCE_COLUMN})`;

/** An AFTER UPDATE row trigger logging each accepted write, in each dialect's words (a refused UPDATE matches no row). */
const LOG_TRIGGER: Readonly<Record<SqlTarget["dialect"], readonly string[]>> = {
  postgres: [
    `CREATE FUNCTION log_fenced_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${LOG_ACCEPTED}; RETURN NULL; END $$`,
    `CREATE TRIGGER log_fenced_write AFTER UPDATE ON ${RESOURCE_TABLE} FOR EACH ROW EXECUTE FUNCTION log_fenced_write()`,
  ],
  mysql: [`CREATE TRIGGER log_fenced_write AFTER UPDATE ON ${RESOURCE_TABLE} FOR EACH ROW ${LOG_ACCEPTED}`],
  sqlite: [`CREATE TRIGGER log_fenced_write AFTER UPDATE ON ${RESOURCE_TABLE} BEGIN ${LOG_ACCEPTED}; END`],
};

async function createTables(db: FenceDb, dialect: SqlTarget["dialect"]): Promise<void> {
  if (dialect === "sqlite") await sql`PRAGMA journal_mode = WAL`.execute(db);
  await db.schema
    .createTable(RESOURCE_TABLE)
    .addColumn("resource_key", "varchar(200)", (column) => column.primaryKey())
    .addColumn("seq", "bigint", (column) => column.notNull().defaultTo(0))
    .addColumn("write_id", "varchar(36)")
    .execute();
  await addFenceColumn(db, RESOURCE_TABLE);
  await db.schema
    .createTable(WRITES_TABLE)
    .addColumn("write_id", "varchar(36)", (column) => column.primaryKey())
    .addColumn("resource_key", "varchar(200)", (column) => column.notNull())
    .addColumn("seq", "bigint", (column) => column.notNull())
    .addColumn("token", "bigint")
    .execute();
  for (const statement of LOG_TRIGGER[dialect]) await sql.raw(statement).execute(db);
}

async function startDatabase(kind: "postgres" | "mariadb" | "sqlite"): Promise<{ target: SqlTarget; stop: () => Promise<void> }> {
  switch (kind) {
    case "postgres": {
      const server = await startPostgres();
      return { target: { kind: "sql", dialect: "postgres", url: server.url }, stop: () => server.close() };
    }
    case "mariadb": {
      const server = await startMariadb();
      return { target: { kind: "sql", dialect: "mysql", url: server.url }, stop: () => server.close() };
    }
    case "sqlite": {
      const dir = mkdtempSync(join(tmpdir(), "distlock-fence-"));
      return { target: { kind: "sql", dialect: "sqlite", url: join(dir, "resource.sqlite") }, stop: async () => rmSync(dir, { recursive: true, force: true }) };
    }
  }
}

/** A database of its own for the fenced rows (a server, or a SQLite file in a temp dir), never faulted. */
export async function startSqlFence(kind: "postgres" | "mariadb" | "sqlite"): Promise<FenceServer> {
  const { target, stop } = await startDatabase(kind);
  const db = openSqlDb(target);
  const close = async () => {
    await db.destroy();
    await stop();
  };
  try {
    await createTables(db, target.dialect);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    target,
    prepare: async (key) => {
      await db.insertInto(RESOURCE_TABLE).values({ resource_key: key }).execute();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
