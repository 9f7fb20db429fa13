import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";

/**
 * A pg pool as kysely sees it, whose clients run every parameterised statement as a named prepared
 * statement (parsed and planned once per connection). Named statements are session state: only for
 * direct connections or PgBouncer ≥ 1.21 with `max_prepared_statements`.
 */
export class PreparedPgPool implements PostgresPool {
  readonly #pool: pg.Pool;
  readonly #ends: boolean;
  readonly #clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  /** `ends`: whether `end()` (kysely's destroy) ends the underlying pool, i.e. whether the provider owns it. */
  constructor(pool: pg.Pool, ends: boolean) {
    this.#pool = pool;
    this.#ends = ends;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.#pool.connect();
    let wrapped = this.#clients.get(client);
    if (wrapped === undefined) {
      wrapped = {
        query: ((text: string | pg.Submittable, values?: readonly unknown[]) =>
          typeof text !== "string" || values === undefined || values.length === 0
            ? client.query(text as string, values as unknown[])
            : client.query({ name: statementName(text), text, values: [...values] })) as unknown as PostgresPoolClient["query"],
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

function statementName(text: string): string {
  return `distlock_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
}
