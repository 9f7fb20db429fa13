import { type RawBuilder, sql } from "kysely";

/** The escape character of every LIKE pattern here: not a backslash, which MySQL string literals treat specially. */
const LIKE_ESCAPE = "!";

/** A LIKE pattern matching every text that starts with `prefix` taken literally (`%`, `_` and the escape escaped). */
export function likePrefixPattern(prefix: string): string {
  return `${prefix.replace(/[%_!]/g, `${LIKE_ESCAPE}$&`)}%`;
}

/** `column LIKE '<prefix>%' ESCAPE '!'`, for dialects whose LIKE compares case and bytes exactly. */
export function likePrefix(column: RawBuilder<unknown>, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`${column} like ${likePrefixPattern(prefix)} escape ${sql.lit(LIKE_ESCAPE)}`;
}
