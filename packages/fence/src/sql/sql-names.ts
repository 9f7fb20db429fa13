import { InvalidArgumentError } from "@distlock/core";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** A table or column name: letters, digits and `_`, optionally `schema.name`; anything else is refused before a query. */
export function checkIdentifier(value: unknown, field: string): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value)) {
    throw new InvalidArgumentError(field, "must be a table or column name of letters, digits and _ (optionally schema.name), at most 63 characters each");
  }
  return value;
}

/** A non-empty column → value map whose names are identifiers. */
export function checkColumns(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InvalidArgumentError(field, "must be an object of column → value");
  const entries = Object.entries(value);
  if (entries.length === 0) throw new InvalidArgumentError(field, "must name at least one column");
  for (const [name, item] of entries) {
    checkIdentifier(name, `${field}.${name}`);
    if (item === undefined) throw new InvalidArgumentError(`${field}.${name}`, "is undefined; use null to store NULL");
  }
  return value as Record<string, unknown>;
}

/** The column a helper writes must not also be one the caller sets. */
export function checkNotSet(column: string, values: Record<string, unknown>, field: string): void {
  if (Object.hasOwn(values, column)) throw new InvalidArgumentError(field, `sets "${column}", which the helper writes itself`);
}
