import { BackendUnavailableError } from "@distlock/core";
import { redactCredentials } from "@distlock/core/internal";
import { Migrator, sql } from "kysely";
import type { SqlDialectName } from "../options/sql-dialect-name.js";
import type { AnyKysely } from "../table/any-kysely.js";
import { LATEST_LOCK_TABLE_MIGRATION, LockTableMigrationProvider } from "./lock-table-migration-provider.js";

/** Attempts when several processes migrate one SQLite file at once (kysely's SQLite adapter has no migration lock). */
const SQLITE_MIGRATION_ATTEMPTS = 5;

/**
 * Creates or upgrades the lock table `table` with kysely's Migrator; `BackendUnavailableError` when it cannot.
 * Its history lives in `<table>_migration` / `<table>_migration_lock`, apart from the application's own migrations.
 */
export async function migrateLockTable(db: AnyKysely, dialect: SqlDialectName, table: string): Promise<void> {
  try {
    await runLockTableMigrations(db, dialect, table);
  } catch (error) {
    throw new BackendUnavailableError(dialect, redactCredentials((error as Error).message), { cause: (error as Error).cause });
  }
}

/** `migrateLockTable` with the driver's error left as `cause` of a plain Error, for callers that wrap it themselves. */
export async function runLockTableMigrations(db: AnyKysely, dialect: SqlDialectName, table: string): Promise<void> {
  if (await isCurrent(db, table)) return;
  const migrator = new Migrator({
    db,
    provider: new LockTableMigrationProvider(table, dialect),
    migrationTableName: `${table}_migration`,
    migrationLockTableName: `${table}_migration_lock`,
  });
  const attempts = dialect === "sqlite" ? SQLITE_MIGRATION_ATTEMPTS : 1;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const { error } = await migrator.migrateToLatest();
    if (error === undefined) return;
    lastError = error;
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
  }
  const reason = lastError instanceof Error ? lastError.message || (lastError as { code?: string }).code || lastError.name : String(lastError);
  throw new Error(`could not migrate lock table "${table}" (${reason})`, { cause: lastError });
}

/** One cheap read, so providers after the first skip the Migrator and its database-wide migration lock. */
async function isCurrent(db: AnyKysely, table: string): Promise<boolean> {
  try {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(`${table}_migration`)} where name = ${LATEST_LOCK_TABLE_MIGRATION}`.execute(db);
    return Number(rows[0]?.n ?? 0) > 0;
  } catch {
    return false;
  }
}
