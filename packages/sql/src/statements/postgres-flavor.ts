import { type RawBuilder, sql } from "kysely";
import { likePrefix } from "./key-prefix-match.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";

/** PostgreSQL: `statement_timestamp()` is the server's clock at the start of the statement. */
export const POSTGRES_FLAVOR: LockSqlFlavor = Object.freeze({
  nowMs: sql<number>`(floor(extract(epoch from statement_timestamp()) * 1000))::bigint`,
  greatest: (a: RawBuilder<unknown>, b: RawBuilder<unknown>) => sql<number>`greatest(${a}, ${b})`,
  asText: (expr: RawBuilder<unknown>) => sql<string>`(${expr})::text`,
  lockFloor: (table: RawBuilder<unknown>) => sql`lock table ${table} in share row exclusive mode`,
  lockingInsertReads: false,
  startsWith: likePrefix,
  byteOrder: (column: RawBuilder<unknown>) => sql`${column} collate "C"`,
  onConflict: (key: RawBuilder<unknown>, set: RawBuilder<unknown>) => sql`on conflict (${key}) do update set ${set}`,
  integer: (value: number) => sql<number>`cast(${value} as bigint)`,
  beginWrite: sql`start transaction isolation level read committed`,
  forUpdate: sql`for update`,
});
