import type { PostgresQueryResult } from "kysely";
import type { PgNamedStatement, PgPoolClient, PgQueryPool } from "./postgres-client-api.js";

/** A statement as pg takes it: text and values apart (pg would copy a plain object property by property), or named. */
export type PgStatement = { readonly text: string; readonly values: readonly unknown[]; readonly named?: PgNamedStatement };

/** Clients whose "error" and "end" already reach a lane: one listener each, however often they are checked out as one. */
const watched = new WeakMap<PgPoolClient, () => void>();

/**
 * One client of the provider's own pool kept checked out for the statements that find it free, which so skip the pool's
 * checkout and release (a promise, listener moves and an idle timer for each). A statement that finds it busy goes
 * through the pool. The lane is taken only from an idle client nobody waits for, given back before any other checkout
 * that would find no idle client (`yieldIfStarved`) or when a statement finds checkouts waiting, dropped when its
 * connection fails, and given back at close.
 */
export class StatementLane {
  readonly #pool: PgQueryPool;
  #client: PgPoolClient | undefined;
  #opening = false;
  #busy = false;
  #closed = false;

  constructor(pool: PgQueryPool) {
    this.#pool = pool;
  }

  query<R>(statement: PgStatement): Promise<PostgresQueryResult<R>> {
    const client = this.#client;
    const pool = this.#pool;
    if (client !== undefined) {
      if (this.#busy) return send(pool, statement);
      if (pool.waitingCount === 0) return this.#onLane(client, statement);
      this.#giveBack(client, false);
    } else if (!this.#opening && !this.#closed && pool.idleCount > 0 && pool.waitingCount === 0) {
      return this.#open(statement);
    }
    return send(pool, statement);
  }

  /** Before a checkout of the pool's own: gives an idle lane back if the pool has no idle client, so the checkout never waits on it. */
  yieldIfStarved(): void {
    const client = this.#client;
    if (client !== undefined && !this.#busy && this.#pool.idleCount === 0) this.#giveBack(client, false);
  }

  /** Gives the client back (after the statement on it, if one runs); no lane after this. */
  close(): void {
    this.#closed = true;
    const client = this.#client;
    if (client !== undefined && !this.#busy) this.#giveBack(client, false);
  }

  #onLane<R>(client: PgPoolClient, statement: PgStatement): Promise<PostgresQueryResult<R>> {
    this.#busy = true;
    return send<R>(client, statement).then(
      (result) => {
        this.#busy = false;
        if (this.#closed) this.#giveBack(client, false);
        return result;
      },
      (error: unknown) => {
        this.#busy = false;
        // A failed statement (a timeout, a lost connection) may leave the connection in any state: it is not reused.
        this.#giveBack(client, true);
        throw error;
      },
    );
  }

  /** Checks out the client the lane keeps and runs `statement` on it first. */
  #open<R>(statement: PgStatement): Promise<PostgresQueryResult<R>> {
    this.#opening = true;
    return this.#pool.connect().then(
      (client) => {
        this.#opening = false;
        if (this.#closed || this.#client !== undefined) {
          return send<R>(client, statement).finally(() => client.release());
        }
        if (!watched.has(client)) {
          const broken = () => watched.get(client)?.();
          client.on("error", broken);
          client.on("end", broken);
        }
        watched.set(client, () => {
          if (this.#client === client && !this.#busy) this.#giveBack(client, true);
        });
        this.#client = client;
        return this.#onLane<R>(client, statement);
      },
      (error: unknown) => {
        this.#opening = false;
        throw error;
      },
    );
  }

  #giveBack(client: PgPoolClient, broken: boolean): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    watched.set(client, () => undefined);
    client.release(broken);
  }
}

function send<R>(target: PgQueryPool | PgPoolClient, { text, values, named }: PgStatement): Promise<PostgresQueryResult<R>> {
  return named !== undefined ? target.query<R>(named) : (target as PgQueryPool).query<R>(text, values);
}
