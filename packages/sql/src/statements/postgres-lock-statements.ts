import { type RawBuilder, sql } from "kysely";
import { POSTGRES_FLAVOR } from "./postgres-flavor.js";
import { type HoldCountRow, ReturningLockStatements } from "./returning-lock-statements.js";

/**
 * PostgreSQL: the shared upsert statements, plus `pg_notify(channel, key)` from every statement that frees a
 * row, delivered to listeners when it commits. (Folding the refusal's lease read into the upsert as a CTE
 * saves a round trip per refused attempt but costs about 15% on every uncontended acquire: not done.)
 */
export class PostgresLockStatements extends ReturningLockStatements {
  readonly #channel: string;

  constructor(table: string, channel: string) {
    super(table, POSTGRES_FLAVOR);
    this.#channel = channel;
  }

  protected override announcingFree(update: RawBuilder<HoldCountRow>, key: string): RawBuilder<HoldCountRow> {
    return sql<HoldCountRow>`with freed as (${update})
      select hold_count, case when hold_count = 0 then pg_notify(${this.#channel}, cast(${key} as text)) end as notified from freed`;
  }
}
