import { InvalidConfigError } from "@distlock/core";

/** Longest lock-table name; leaves room for the "_migration_lock" suffix within PostgreSQL's 63-byte identifiers. */
export const MAX_TABLE_NAME_LENGTH = 48;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Returns `table` if it is a plain SQL identifier; anything else (quotes, dots, spaces, `;`) is rejected, never escaped. */
export function validateTableName(table: unknown, field = "table"): string {
  if (typeof table !== "string" || table === "") throw new InvalidConfigError(field, "must be a non-empty string");
  if (table.length > MAX_TABLE_NAME_LENGTH) throw new InvalidConfigError(field, `must be at most ${MAX_TABLE_NAME_LENGTH} characters`);
  if (!IDENTIFIER.test(table)) {
    throw new InvalidConfigError(
      field,
      "must be a plain identifier (letters, digits and _, not starting with a digit); quote characters, dots and spaces are not accepted",
    );
  }
  return table;
}
