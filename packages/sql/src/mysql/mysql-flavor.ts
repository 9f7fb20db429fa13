import { type RawBuilder, sql } from "kysely";
import { likePrefix } from "../table/key-prefix-match.js";
import type { LockSqlFlavor } from "../table/lock-sql-flavor.js";

/** MySQL/MariaDB: microseconds since the epoch on UTC_TIMESTAMP, so the session time zone and DST never matter. */
export const MYSQL_FLAVOR: LockSqlFlavor = Object.freeze({
  nowMs: sql<number>`(timestampdiff(microsecond, '1970-01-01 00:00:00', utc_timestamp(6)) div 1000)`,
  greatest: (a: RawBuilder<unknown>, b: RawBuilder<unknown>) => sql<number>`greatest(${a}, ${b})`,
  asText: (expr: RawBuilder<unknown>) => sql<string>`cast(${expr} as char)`,
  lockFloor: (table: RawBuilder<unknown>) => sql`select fencing_token from ${table} where lock_key = '' for update`,
  lockingInsertReads: true,
  // lock_key is VARBINARY, so LIKE compares bytes.
  startsWith: likePrefix,
  byteOrder: (column: RawBuilder<unknown>) => column,
  onConflict: (_key: RawBuilder<unknown>, set: RawBuilder<unknown>) => sql`on duplicate key update ${set}`,
  integer: (value: number) => sql<number>`cast(${value} as signed)`,
  // The server's isolation level serves: InnoDB takes a transaction's read view at its first plain read, which comes after the row lock.
  beginWrite: sql`start transaction`,
  forUpdate: sql`for update`,
});
