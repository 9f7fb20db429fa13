import { CallDeadlines } from "@distlock/core/internal";
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult } from "kysely";
import type { Mysql2Pool, Mysql2PoolConnection } from "./mysql-client-api.js";

/** mysql2's error code for a query that outlived its `timeout`. */
const QUERY_TIMEOUT_CODE = "PROTOCOL_SEQUENCE_TIMEOUT";

/**
 * A mysql2 pool as kysely sees it, with the two bounds mysql2 lacks: waiting for a free connection gives up
 * after `acquireTimeoutMs` (a connection that turns up later goes straight back), and every query carries
 * mysql2's inactivity `timeout`; a connection whose query timed out is destroyed, not returned.
 */
export class BoundedMysqlPool implements MysqlPool {
  readonly #pool: Mysql2Pool;
  readonly #acquireTimeoutMs: number;
  readonly #queryTimeoutMs: number;
  readonly #wrapped = new WeakMap<Mysql2PoolConnection, MysqlPoolConnection>();
  readonly #ends: boolean;
  readonly #checkouts = new CallDeadlines();

  /** `ends`: whether `end()` (kysely's destroy) ends the underlying pool, i.e. whether the provider owns it. */
  constructor(pool: Mysql2Pool, settings: { acquireTimeoutMs: number; queryTimeoutMs: number; ends: boolean }) {
    this.#pool = pool;
    this.#acquireTimeoutMs = settings.acquireTimeoutMs;
    this.#queryTimeoutMs = settings.queryTimeoutMs;
    this.#ends = settings.ends;
  }

  getConnection(callback: (error: unknown, connection: MysqlPoolConnection) => void): void {
    const checkout = new Promise<Mysql2PoolConnection>((resolve, reject) => {
      this.#pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection)));
    });
    this.#checkouts
      .bound(
        checkout,
        this.#acquireTimeoutMs,
        () => new Error(`no pooled MySQL connection became free within ${this.#acquireTimeoutMs} ms`),
        (late) => late.release(),
      )
      .then(
        (connection) => callback(null, this.#wrap(connection)),
        (error: unknown) => callback(error, undefined as never),
      );
  }

  end(callback: (error: unknown) => void): void {
    if (this.#ends) this.#pool.end((error) => callback(error));
    else callback(undefined);
  }

  #wrap(connection: Mysql2PoolConnection): MysqlPoolConnection {
    let wrapped = this.#wrapped.get(connection);
    if (wrapped === undefined) {
      const timeout = this.#queryTimeoutMs;
      let timedOut = false;
      const query = (sql: string, values: unknown[], callback?: (error: unknown, result: MysqlQueryResult) => void) => {
        if (callback === undefined) return connection.query({ sql, values, timeout });
        return connection.query({ sql, values, timeout }, (error: unknown, result: unknown) => {
          if ((error as { code?: string } | null)?.code === QUERY_TIMEOUT_CODE) timedOut = true;
          callback(error, result as MysqlQueryResult);
        });
      };
      wrapped = {
        query: query as MysqlPoolConnection["query"],
        // A timed-out statement may still run on the server (holding row or named locks): end its session.
        release: () => (timedOut ? connection.destroy() : connection.release()),
      };
      this.#wrapped.set(connection, wrapped);
    }
    return wrapped;
  }
}
