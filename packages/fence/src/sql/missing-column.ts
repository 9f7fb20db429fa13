import { InvalidArgumentError } from "@distlock/core";

/** PostgreSQL's undefined_column, MySQL's ER_BAD_FIELD_ERROR, SQLite's message. */
function isUndefinedColumn(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, errno, message } = error as { code?: unknown; errno?: unknown; message?: unknown };
  return code === "42703" || errno === 1054 || (typeof message === "string" && /no such column|has no column named/.test(message));
}

/** Runs a statement; a column the table lacks becomes a typed error naming the option (the statement wrote nothing). */
export async function namingMissingColumn<T>(field: string, table: string, column: string, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (!isUndefinedColumn(error)) throw error;
    throw new InvalidArgumentError(field, `names a column that table "${table}" lacks ("${column}" or a column you set); add it with a migration`, {
      cause: error,
    });
  }
}
