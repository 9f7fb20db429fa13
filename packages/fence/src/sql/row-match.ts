import type { ExpressionBuilder } from "kysely";

/** `a = ? AND b = ?` for each column of `where` (`IS NULL` for null values). */
// biome-ignore lint/suspicious/noExplicitAny: tables are named by the caller at run time.
export function matchRow(where: Record<string, unknown>): (eb: ExpressionBuilder<any, any>) => ReturnType<ExpressionBuilder<any, any>["and"]> {
  return (eb) => eb.and(Object.entries(where).map(([column, value]) => (value === null ? eb(column, "is", null) : eb(column, "=", value))));
}
