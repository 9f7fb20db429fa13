import type { PostgresQueryResult, QueryResult } from "kysely";
import type { DirectQuery } from "../table/direct-statements.js";
import type { PgPool, PgQueryPool } from "./postgres-client-api.js";
import { preparedStatementName } from "./prepared-postgres-pool.js";

/**
 * A compiled statement run by `pool.query` (checkout, statement, release in one call), named when `prepared`, its
 * result as kysely's PostgreSQL driver gives it. The pool is the one kysely's dialect uses.
 */
export function poolQuery(pool: () => Promise<PgPool>, prepared: boolean): DirectQuery {
  let ready: PgPool | undefined;
  // Text and values apart, not as one object, which pg would copy property by property first.
  const query = (target: PgPool, text: string, values: readonly unknown[]) =>
    (prepared
      ? (target as PgQueryPool).query({ name: preparedStatementName(text), text, values: [...values] })
      : (target as PgQueryPool).query(text, values)
    ).then(kyselyResult);
  return (text, values) => {
    if (ready !== undefined) return query(ready, text, values);
    return pool().then((created) => {
      ready = created;
      return query(created, text, values);
    });
  };
}

/** A pg result as kysely's PostgreSQL driver answers it. */
function kyselyResult<R>({ command, rowCount, rows }: PostgresQueryResult<R>): QueryResult<R> {
  const changed = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE";
  return { rows: rows ?? [], numAffectedRows: changed ? BigInt(rowCount) : undefined };
}
