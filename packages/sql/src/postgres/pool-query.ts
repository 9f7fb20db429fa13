import type { PostgresQueryResult, QueryResult } from "kysely";
import type { DirectQuery } from "../table/direct-statements.js";
import type { PgPool, PgQueryPool } from "./postgres-client-api.js";
import { namedStatement } from "./prepared-postgres-pool.js";
import { StatementLane } from "./statement-lane.js";

/** Compiled statements run on the provider's own pool, and what to do at close. */
export interface PoolQuery {
  readonly query: DirectQuery;
  /** Gives back the client the statements kept checked out; call before ending the pool. */
  close(): void;
  /** `pool` as kysely's dialect should use it: each of its checkouts first takes the lane back if it would wait otherwise. */
  sharing(pool: PgPool): PgPool;
}

/**
 * Compiled statements run on `pool` (the one kysely's dialect uses) through a `StatementLane`, named when `prepared`,
 * each result as kysely's PostgreSQL driver gives it.
 */
export function poolQuery(pool: () => Promise<PgPool>, prepared: boolean): PoolQuery {
  let lane: StatementLane | undefined;
  let closed = false;
  const run = (on: StatementLane, text: string, values: readonly unknown[]) =>
    on.query<unknown>({ text, values, named: prepared ? namedStatement(text, values) : undefined }).then(kyselyResult);
  return {
    query: (text, values) => {
      if (lane !== undefined) return run(lane, text, values);
      return pool().then((created) => {
        lane ??= new StatementLane(created as PgQueryPool);
        if (closed) lane.close();
        return run(lane, text, values);
      });
    },
    close: () => {
      closed = true;
      lane?.close();
    },
    sharing: (shared) => ({
      connect: () => {
        lane?.yieldIfStarved();
        return shared.connect();
      },
      end: () => shared.end(),
      on: shared.on.bind(shared),
    }),
  };
}

/** A pg result as kysely's PostgreSQL driver answers it. */
function kyselyResult<R>({ command, rowCount, rows }: PostgresQueryResult<R>): QueryResult<R> {
  const changed = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE";
  return { rows: rows ?? [], numAffectedRows: changed ? BigInt(rowCount) : undefined };
}
