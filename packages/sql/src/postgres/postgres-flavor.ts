import { type RawBuilder, sql } from "kysely";
import { likePrefix } from "../table/key-prefix-match.js";
import type { LockSqlFlavor } from "../table/lock-sql-flavor.js";

/**
 * How long a write transaction may sit idle between its statements before PostgreSQL ends its session: well above a
 * round trip, below the shortest lease a semaphore holder renews, whose renewals that row lock would hold up.
 */
const IDLE_WRITE_LIMIT_MS = 500;

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
  // The server ends the session (rolling the transaction back) after this long idle inside it.
  boundIdleWrite: sql.raw(`set local idle_in_transaction_session_timeout = ${IDLE_WRITE_LIMIT_MS}`),
  forUpdate: sql`for update`,
});
