import { InvalidArgumentError } from "@distlock/core";
import { CONFLICT, type OptimisticResult, type OptimisticRetryOptions, resolveRetryOptions, retryOptimistically } from "../optimistic-retry.js";
import { matchRow } from "./row-match.js";
import type { AnyDb } from "./sql-dialect.js";
import { checkColumns, checkNotSet } from "./sql-names.js";
import { checkVersion, compareAndSet, versionSpec } from "./versioned-update.js";

/** Read a row, compute its changes, write them if nobody wrote in between; retried on conflict. */
export interface OptimisticUpdate<Row extends Record<string, unknown>> {
  table: string;
  /** Equality conditions that pick exactly one row, e.g. `{ id: 1 }`. */
  where: Record<string, unknown>;
  /** The changes to make, computed from the row as read (it may run more than once). */
  update: (row: Row) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The integer column that counts writes. @default "version" */
  column?: string;
}

/**
 * Reads the row and its version, applies `update`, and writes with `WHERE version = <read>`; when another writer got
 * there first, backs off (jittered) and tries again, up to `maxAttempts`, then throws `VersionConflictError`.
 * Resolves with the row as written (null when no row matched) and the attempts it took. Inside the caller's
 * transaction each retry re-reads, which sees other writers' commits only at READ COMMITTED.
 */
export async function optimisticUpdate<Row extends Record<string, unknown>>(
  db: AnyDb,
  write: OptimisticUpdate<Row>,
  options?: OptimisticRetryOptions,
): Promise<OptimisticResult<Row | null>> {
  const spec = versionSpec(write);
  if (typeof write.update !== "function") throw new InvalidArgumentError("write.update", "must be a function from the row to its changes");
  resolveRetryOptions(options);
  return retryOptimistically(`table "${spec.table}"`, options, async () => {
    const row = (await db.selectFrom(spec.table).selectAll().where(matchRow(spec.match)).executeTakeFirst()) as Row | undefined;
    if (row === undefined) return null;
    if (!Object.hasOwn(row, spec.column)) throw new InvalidArgumentError("write.column", `names a column that table "${spec.table}" lacks ("${spec.column}")`);
    const version = checkVersion(row[spec.column], `${spec.table}.${spec.column}`);
    const changes = checkColumns(await write.update(row), "write.update()");
    checkNotSet(spec.column, changes, "write.update()");
    if (!(await compareAndSet(db, spec, version, changes))) return CONFLICT;
    return { ...row, ...changes, [spec.column]: typeof row[spec.column] === "number" ? Number(version + 1n) : version + 1n } as Row;
  });
}
