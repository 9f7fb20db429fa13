import { FencedOutError } from "@distlock/core";
import type { FencingLock } from "../fencing-token.js";
import { type FenceSpec, fenceSpec } from "./fence-spec.js";
import { namingMissingColumn } from "./missing-column.js";
import { matchRow, matchShape, matchValues, matchWith } from "./row-match.js";
import { executeShaped } from "./shaped-statement.js";
import { type AnyDb, dialectOf, integerParam, readInteger } from "./sql-dialect.js";

/** An UPDATE that only a holder whose token is at least the row's stored one may make. */
export interface FencedUpdate {
  table: string;
  /** Equality conditions that pick the row(s), e.g. `{ id: 1 }`. */
  where: Record<string, unknown>;
  /** The columns to change. */
  set: Record<string, unknown>;
  /** The column that keeps the last accepted token (BIGINT, NULL before the first fenced write). @default "fence_token" */
  column?: string;
}

/**
 * Updates the rows `where` picks, and stores the lock's fencing token with them, only where the stored token is NULL or
 * not larger than the lock's. Throws `FencedOutError` (having changed nothing) when a later holder already wrote.
 * Resolves with the number of rows updated: 0 when no row matched. Runs inside the caller's transaction when given one.
 */
export async function fencedUpdate(db: AnyDb, lock: FencingLock, update: FencedUpdate): Promise<{ updatedRows: bigint }> {
  const spec = fenceSpec(lock, update, "where", update?.where, update?.set, "set");
  const updatedRows = await updateIfNotStale(db, spec);
  if (updatedRows === 0n) await refuseIfStale(db, spec);
  return { updatedRows };
}

/** The fenced UPDATE itself, compiled once per shape; resolves with the rows it matched. */
export async function updateIfNotStale(db: AnyDb, spec: FenceSpec): Promise<bigint> {
  const dialect = dialectOf(db);
  const columns = Object.keys(spec.values);
  const values = [...Object.values(spec.values), spec.token.toString(), ...matchValues(spec.match)];
  const shape = `fenced update\u0000${spec.table}\u0000${spec.column}\u0000${columns.join(",")}\u0000${matchShape(spec.match)}`;
  const result = await namingMissingColumn("write.column", spec.table, spec.column, () =>
    executeShaped(db, shape, values, (slots) => {
      const token = integerParam(dialect, slots[columns.length]);
      return db
        .updateTable(spec.table)
        .set({ ...Object.fromEntries(columns.map((column, index) => [column, slots[index]])), [spec.column]: token })
        .where(matchRow(matchWith(spec.match, slots, columns.length + 1)))
        .where((eb) => eb.or([eb(spec.column, "is", null), eb(spec.column, "<=", token)]));
    }),
  );
  return result.numAffectedRows ?? 0n;
}

/** After a write that changed nothing: throws `FencedOutError` when a matching row holds a larger token. */
export async function refuseIfStale(db: AnyDb, spec: FenceSpec): Promise<void> {
  const rows = await db.selectFrom(spec.table).select(spec.column).where(matchRow(spec.match)).execute();
  for (const row of rows) {
    const stored = readInteger(row[spec.column]);
    if (stored !== null && stored > spec.token) throw new FencedOutError(`table "${spec.table}"`, spec.token, stored);
  }
}
