import { InvalidArgumentError } from "@distlock/core";
import { namingMissingColumn } from "./missing-column.js";
import { matchRow, matchShape, matchValues, matchWith } from "./row-match.js";
import { executeShaped } from "./shaped-statement.js";
import { type AnyDb, dialectOf, integerParam, readInteger } from "./sql-dialect.js";
import { checkColumns, checkIdentifier, checkNotSet } from "./sql-names.js";

/** The default name of the optimistic version column. */
export const DEFAULT_VERSION_COLUMN = "version";

/** An UPDATE that applies only if the row still has the version the caller read. */
export interface VersionedUpdate {
  table: string;
  /** Equality conditions that pick the row, e.g. `{ id: 1 }`. */
  where: Record<string, unknown>;
  /** The columns to change. */
  set: Record<string, unknown>;
  /** The version read with the row; the write stores version + 1. */
  version: number | bigint | string;
  /** The integer column that counts writes. @default "version" */
  column?: string;
}

/** A checked versioned write. */
export interface VersionSpec {
  readonly table: string;
  readonly column: string;
  readonly match: Record<string, unknown>;
}

/** Validates the table, version column and row match of an optimistic write, before any query. */
export function versionSpec(write: { table: string; column?: string | undefined; where: unknown }): VersionSpec {
  return {
    table: checkIdentifier(write?.table, "write.table"),
    column: checkIdentifier(write.column ?? DEFAULT_VERSION_COLUMN, "write.column"),
    match: checkColumns(write.where, "write.where"),
  };
}

/** The version as an integer, or a typed error naming `field`. */
export function checkVersion(value: unknown, field: string): bigint {
  const version = readInteger(value);
  if (version === null) throw new InvalidArgumentError(field, "must be an integer (a number, a bigint or a decimal string)");
  return version;
}

/**
 * `UPDATE … SET …, version = version + 1 WHERE … AND version = ?`: true when it wrote, false when the row had moved
 * on (or is gone). Runs inside the caller's transaction when given one.
 */
export async function versionedUpdate(db: AnyDb, update: VersionedUpdate): Promise<boolean> {
  const spec = versionSpec(update);
  const version = checkVersion(update.version, "write.version");
  const set = checkColumns(update.set, "write.set");
  checkNotSet(spec.column, set, "write.set");
  return compareAndSet(db, spec, version, set);
}

/** The versioned UPDATE itself, compiled once per shape. */
export async function compareAndSet(db: AnyDb, spec: VersionSpec, version: bigint, set: Record<string, unknown>): Promise<boolean> {
  const dialect = dialectOf(db);
  const columns = Object.keys(set);
  const values = [...Object.values(set), (version + 1n).toString(), ...matchValues(spec.match), version.toString()];
  const shape = `versioned update\u0000${spec.table}\u0000${spec.column}\u0000${columns.join(",")}\u0000${matchShape(spec.match)}`;
  const result = await namingMissingColumn("write.column", spec.table, spec.column, () =>
    executeShaped(db, shape, values, (slots) =>
      db
        .updateTable(spec.table)
        .set({ ...Object.fromEntries(columns.map((column, index) => [column, slots[index]])), [spec.column]: integerParam(dialect, slots[columns.length]) })
        .where(matchRow(matchWith(spec.match, slots, columns.length + 1)))
        .where(spec.column, "=", integerParam(dialect, slots[values.length - 1])),
    ),
  );
  return (result.numAffectedRows ?? 0n) > 0n;
}
