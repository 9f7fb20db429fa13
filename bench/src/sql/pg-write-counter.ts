import pg from "pg";
import type { ServerCounter } from "../harness/index.js";

/**
 * Writing transactions on one PostgreSQL server: the transaction id `txid_current()` returns before and after a
 * window, over a connection of its own. Every distlock statement that takes, renews or releases a key, or keeps a
 * waiter's place, is one autocommit write; refusal reads, the floor's advisory-lock calls and other read-only
 * statements assign no id and are not counted. (The test server does not load pg_stat_statements, and
 * pg_stat_database's commit counts reach the view up to seconds late, so neither gives an exact per-window count.)
 */
export class PgWriteCounter implements ServerCounter {
  readonly #client: pg.Client;
  #connected: Promise<void> | undefined;
  /** The counter's own `txid_current()`, which takes an id itself. */
  readonly readingCost = Object.freeze({ "write xacts": 1 });

  constructor(url: string) {
    this.#client = new pg.Client({ connectionString: url });
    this.#client.on("error", () => undefined);
  }

  async read(): Promise<Readonly<Record<string, number>>> {
    this.#connected ??= this.#client.connect().then(() => undefined);
    await this.#connected;
    const { rows } = await this.#client.query<{ id: string }>("select txid_current()::text as id");
    return { "write xacts": Number(rows[0]?.id) };
  }

  async close(): Promise<void> {
    if (this.#connected !== undefined) await this.#client.end();
  }
}
