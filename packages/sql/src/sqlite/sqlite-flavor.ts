import { type RawBuilder, sql } from "kysely";
import type { LockSqlFlavor } from "../table/lock-sql-flavor.js";

/** SQLite: the database file has no server, so "server time" is SQLite's own clock ('now' is fixed per statement). */
export const SQLITE_FLAVOR: LockSqlFlavor = Object.freeze({
  nowMs: sql<number>`cast((julianday('now') - 2440587.5) * 86400000.0 as integer)`,
  greatest: (a: RawBuilder<unknown>, b: RawBuilder<unknown>) => sql<number>`max(${a}, ${b})`,
  asText: (expr: RawBuilder<unknown>) => sql<string>`cast(${expr} as text)`,
  lockFloor: (table: RawBuilder<unknown>) => sql`update ${table} set fencing_token = fencing_token where lock_key = ''`,
  lockingInsertReads: false,
  // SQLite's LIKE ignores ASCII case; = compares with the BINARY collation.
  startsWith: (column: RawBuilder<unknown>, prefix: string) => sql<boolean>`substr(${column}, 1, length(${prefix})) = ${prefix}`,
  byteOrder: (column: RawBuilder<unknown>) => column,
  onConflict: (key: RawBuilder<unknown>, set: RawBuilder<unknown>) => sql`on conflict (${key}) do update set ${set}`,
  integer: (value: number) => sql<number>`cast(${value} as bigint)`,
  beginWrite: sql`begin immediate`,
  forUpdate: sql``,
});
