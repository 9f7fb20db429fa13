import { type FencingLock, fencingTokenOf } from "../fencing-token.js";
import { checkColumns, checkIdentifier, checkNotSet } from "./sql-names.js";

/** The default name of the column that keeps the last accepted fencing token. */
export const DEFAULT_FENCE_COLUMN = "fence_token";

/** A checked fenced write: everything it needs, validated before any query. */
export interface FenceSpec {
  readonly token: bigint;
  readonly table: string;
  readonly column: string;
  readonly match: Record<string, unknown>;
  readonly values: Record<string, unknown>;
}

/** Validates a fenced write's lock and names; `matchField` is "where" for updates, "key" for upserts. */
export function fenceSpec(
  lock: FencingLock,
  write: { table: string; column?: string | undefined },
  matchField: "where" | "key",
  match: unknown,
  values: unknown,
  valuesField: "set" | "values",
): FenceSpec {
  const token = fencingTokenOf(lock);
  const table = checkIdentifier(write.table, "write.table");
  const column = checkIdentifier(write.column ?? DEFAULT_FENCE_COLUMN, "write.column");
  const checkedMatch = checkColumns(match, `write.${matchField}`);
  const checkedValues = checkColumns(values, `write.${valuesField}`);
  checkNotSet(column, checkedValues, `write.${valuesField}`);
  return { token, table, column, match: checkedMatch, values: checkedValues };
}
