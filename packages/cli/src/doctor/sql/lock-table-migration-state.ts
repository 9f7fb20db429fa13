import type { LockUrl } from "@distlock/core/driver";
import { DEFAULT_SQL_LOCK_OPTIONS, LockTableMigrationProvider, type SqlDialectName } from "@distlock/sql";
import type { CheckList } from "../doctor-report.js";

/** Runs one statement and resolves with its rows; rejects when the table is missing. */
export type RowQuery = (sql: string) => Promise<Record<string, unknown>[]>;

/** The lock table a URL names, and whether the provider migrates it on first use. */
export function lockTableOf(url: LockUrl): { table: string; migrate: boolean } {
  return { table: url.params.get("table") ?? DEFAULT_SQL_LOCK_OPTIONS.table, migrate: url.params.get("migrate") !== "false" };
}

/** Table mode: the lock table's migration history against the newest migration this version of distlock has. */
export async function checkMigrationState(dialect: SqlDialectName, url: LockUrl, query: RowQuery, checks: CheckList): Promise<void> {
  const { table, migrate } = lockTableOf(url);
  const migrations = Object.keys(await new LockTableMigrationProvider(table, dialect).getMigrations()).sort();
  const latest = migrations.at(-1) ?? "";
  const applied = await query(`select name from ${table}_migration`).then(
    (rows) => rows.map((row) => String(row.name)),
    () => undefined,
  );
  const later = migrate
    ? "the provider migrates it on first use (migrate is on)"
    : "migrate is off: run migrateLockTable() (or provider.migrate()) before the first lock";
  if (applied === undefined) {
    checks.add(
      `${dialect}.migration`,
      migrate ? "ok" : "fail",
      `lock table "${table}" does not exist yet: ${later}`,
      migrate ? undefined : "run the migration, or drop ?migrate=false",
      table,
    );
  } else if (applied.includes(latest))
    checks.ok(`${dialect}.migration`, `lock table "${table}" is at ${latest} (${applied.length} of ${migrations.length} migrations)`, table);
  else {
    const missing = migrations.filter((name) => !applied.includes(name)).join(", ");
    checks.add(
      `${dialect}.migration`,
      migrate ? "warn" : "fail",
      `lock table "${table}" lacks ${missing}: ${later}`,
      "run the migration before deploying this version (older processes on the table must stop first)",
      table,
    );
  }
}
