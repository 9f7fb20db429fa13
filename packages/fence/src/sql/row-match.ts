import type { ExpressionBuilder } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: tables are named by the caller at run time.
type AnyExpressionBuilder = ExpressionBuilder<any, any>;

/** `a = ? AND b = ?` for each column of `where` (`IS NULL` for null values). */
export function matchRow(where: Record<string, unknown>): (eb: AnyExpressionBuilder) => ReturnType<AnyExpressionBuilder["and"]> {
  return (eb) => eb.and(Object.entries(where).map(([column, value]) => (value === null ? eb(column, "is", null) : eb(column, "=", value))));
}

/** The part of a statement's shape a row match decides: its columns, and which of them are matched with IS NULL. */
export function matchShape(where: Record<string, unknown>): string {
  let shape = "";
  for (const column in where) shape += where[column] === null ? `${column} null,` : `${column},`;
  return shape;
}

/** `where` with its values replaced by `values` taken in order from `from` (null stays null: it is part of the shape). */
export function matchWith(where: Record<string, unknown>, values: readonly unknown[], from: number): Record<string, unknown> {
  const match: Record<string, unknown> = {};
  let next = from;
  for (const column in where) match[column] = where[column] === null ? null : values[next++];
  return match;
}

/** The values of `where` that become parameters (every one but the nulls), in order. */
export function matchValues(where: Record<string, unknown>): unknown[] {
  const values: unknown[] = [];
  for (const column in where) if (where[column] !== null) values.push(where[column]);
  return values;
}
