import type { FencingLock } from "../fencing-token.js";
import { type FenceSpec, fenceSpec } from "./fence-spec.js";
import { refuseIfStale, updateIfNotStale } from "./fenced-update.js";
import { namingMissingColumn } from "./missing-column.js";
import { matchRow } from "./row-match.js";
import { type AnyDb, dialectOf, integerParam } from "./sql-dialect.js";

/** An INSERT, or an UPDATE of the row with the same key, that only a holder whose token is at least the stored one may make. */
export interface FencedUpsert {
  table: string;
  /** The columns of a primary key or unique constraint, with the row's values, e.g. `{ sku: "A-1" }`. */
  key: Record<string, unknown>;
  /** The other columns to write. */
  values: Record<string, unknown>;
  /** The column that keeps the last accepted token. @default "fence_token" */
  column?: string;
}

/** MySQL's duplicate-key error: the row appeared between the fenced UPDATE and the INSERT. */
const ER_DUP_ENTRY = 1062;

/**
 * Inserts the row, or updates it where its stored token is NULL or not larger than the lock's; the token is stored
 * with it. Throws `FencedOutError` (having changed nothing) when a later holder already wrote the row. One statement on
 * PostgreSQL and SQLite (`ON CONFLICT … DO UPDATE … WHERE`); on MySQL an UPDATE, then an INSERT if no row matched.
 */
export async function fencedUpsert(db: AnyDb, lock: FencingLock, upsert: FencedUpsert): Promise<void> {
  const spec = fenceSpec(lock, upsert, "key", upsert?.key, upsert?.values, "values");
  const written = dialectOf(db) === "mysql" ? await updateThenInsert(db, spec) : await insertOnConflict(db, spec);
  if (!written) await refuseIfStale(db, spec);
}

async function insertOnConflict(db: AnyDb, spec: FenceSpec): Promise<boolean> {
  const token = integerParam(dialectOf(db), spec.token.toString());
  const excluded = (column: string) => `excluded.${column}`;
  const stored = `${spec.table}.${spec.column}`;
  const result = await namingMissingColumn("write.column", spec.table, spec.column, () =>
    db
      .insertInto(spec.table)
      .values({ ...spec.match, ...spec.values, [spec.column]: token })
      .onConflict((conflict) =>
        conflict
          .columns(Object.keys(spec.match))
          .doUpdateSet((eb) => Object.fromEntries([...Object.keys(spec.values), spec.column].map((column) => [column, eb.ref(excluded(column))])))
          .where((eb) => eb.or([eb(stored, "is", null), eb(stored, "<=", eb.ref(excluded(spec.column)))])),
      )
      .executeTakeFirst(),
  );
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

async function updateThenInsert(db: AnyDb, spec: FenceSpec): Promise<boolean> {
  if ((await updateIfNotStale(db, spec)) > 0n) return true;
  const exists = await db.selectFrom(spec.table).select(spec.column).where(matchRow(spec.match)).executeTakeFirst();
  if (exists !== undefined) return false;
  try {
    await db
      .insertInto(spec.table)
      .values({ ...spec.match, ...spec.values, [spec.column]: integerParam("mysql", spec.token.toString()) })
      .execute();
    return true;
  } catch (error) {
    if ((error as { errno?: unknown }).errno !== ER_DUP_ENTRY) throw error;
    return (await updateIfNotStale(db, spec)) > 0n;
  }
}
