import { createHash } from "node:crypto";
import type { PostgresCursor, PostgresPool, PostgresPoolClient } from "kysely";
import type { PgNamedStatement, PgPool, PgPoolClient } from "./postgres-client-api.js";

/**
 * A pg pool as kysely sees it, whose clients run every parameterised statement as a named prepared
 * statement (parsed and planned once per connection). Named statements are session state: only for
 * direct connections or PgBouncer ≥ 1.21 with `max_prepared_statements`.
 */
export class PreparedPostgresPool implements PostgresPool {
  readonly #pool: PgPool;
  readonly #ends: boolean;
  readonly #clients = new WeakMap<PgPoolClient, PostgresPoolClient>();

  /** `ends`: whether `end()` (kysely's destroy) ends the underlying pool, i.e. whether the provider owns it. */
  constructor(pool: PgPool, ends: boolean) {
    this.#pool = pool;
    this.#ends = ends;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.#pool.connect();
    let wrapped = this.#clients.get(client);
    if (wrapped === undefined) {
      wrapped = {
        query: ((text: string | PostgresCursor<unknown>, values?: readonly unknown[]) => {
          if (typeof text !== "string") return client.query(text);
          if (values === undefined || values.length === 0) return client.query(text, values);
          return client.query(namedStatement(text, values));
        }) as PostgresPoolClient["query"],
        release: () => client.release(),
      };
      this.#clients.set(client, wrapped);
    }
    return wrapped;
  }

  async end(): Promise<void> {
    if (this.#ends) await this.#pool.end();
  }
}

/** How many statement texts keep their prepared name; past that the cache starts over (a bound, not an eviction policy). */
const NAMED_TEXTS = 256;
const names = new Map<string, string>();

/** The name a statement's text is prepared under, the same on every connection; hashed once per text. */
export function preparedStatementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= NAMED_TEXTS) names.clear();
    name = `distlock_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** `text` and its `values` as the named prepared statement pg runs (`preparedStatementName`). */
export function namedStatement(text: string, values: readonly unknown[]): PgNamedStatement {
  return { name: preparedStatementName(text), text, values: [...values] };
}
