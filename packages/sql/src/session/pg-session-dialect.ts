import { InvalidConfigError } from "@distlock/core";
import type { PgConnectionConfig, PgModule } from "../clients/pg-api.js";
import type { SessionConnection, SessionDialect, SessionLockView } from "./session-connection.js";
import { watchConnectionLoss } from "./watch-connection-loss.js";

/** The slice of a `pg.Client` a session uses. */
interface PgSessionClient {
  connect(): Promise<unknown>;
  query<R>(statement: { text: string; values?: unknown[]; query_timeout?: number }): Promise<{ rows: R[] }>;
  on(event: "error" | "end", listener: () => void): unknown;
  end(): Promise<void>;
}

export interface PgSessionSettings {
  readonly config: PgConnectionConfig;
  readonly table: string;
  /** The `url` option's field, named when the connection turns out not to be a session of its own. */
  readonly urlField: string;
  /** TCP keepalive: first probe after this much idle time. */
  readonly keepAliveInitialDelayMs: number;
}

/** PostgreSQL session locks: `pg_try_advisory_lock` / `pg_advisory_lock` on one 64-bit key, tokens from a sequence. */
export function pgSessionDialect(pg: Promise<PgModule>, settings: PgSessionSettings): SessionDialect {
  const sequence = `${settings.table}_session_token`;
  const queryTimeoutMs = settings.config.query_timeout;
  const statements = {
    // CASE evaluates the lock first: the token is drawn only after the grant, in the same statement.
    tryLock: `SELECT CASE WHEN pg_try_advisory_lock($1::int8) THEN nextval('${sequence}') END AS token, pg_backend_pid() AS pid`,
    // OFFSET 0 keeps the subquery (the wait) from being flattened: nextval runs after it returns.
    waitLock: `SELECT nextval('${sequence}') AS token, pg_backend_pid() AS pid FROM (SELECT pg_advisory_lock($1::int8) OFFSET 0) AS granted`,
    unlock: "SELECT pg_advisory_unlock($1::int8) AS released",
    view: `SELECT l.granted, l.pid, a.application_name AS label FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`,
    endHolder: `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`,
  };

  async function open(label: string): Promise<SessionConnection> {
    // No client-wide query timeout: a wait may block as long as the caller allows; every other statement gets one.
    const client = new (await pg).Client({
      ...settings.config,
      query_timeout: 0,
      application_name: label.slice(0, 63),
      keepAliveInitialDelayMillis: settings.keepAliveInitialDelayMs,
    } as PgConnectionConfig) as unknown as PgSessionClient;
    const lost = watchConnectionLoss(client);
    try {
      await client.connect();
    } catch (error) {
      void client.end().catch(() => undefined);
      throw error;
    }
    const rows = async <R>(text: string, values: readonly unknown[] = [], timeout = queryTimeoutMs): Promise<R[]> => {
      try {
        return (await client.query<R>({ text, values: [...values], query_timeout: timeout })).rows;
      } catch (error) {
        // A statement that timed out or broke leaves the session in an unknown state: end it, its locks with it.
        if (!isCancelled(error)) void client.end().catch(() => undefined);
        throw error;
      }
    };
    const run = async <R>(text: string, values: readonly unknown[] = [], timeout = queryTimeoutMs): Promise<R> =>
      (await rows<R>(text, values, timeout))[0] as R;
    const { pid: sessionId } = await run<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const checkSameSession = (pid: number) => {
      if (pid === sessionId) return;
      void client.end().catch(() => undefined);
      throw new InvalidConfigError(
        settings.urlField,
        "mode=session needs a connection that stays one server session, but its statements ran on different backends (a pooler in transaction mode, e.g. PgBouncer?): connect directly or use session pooling",
      );
    };
    return {
      sessionId,
      lost,
      async tryLock(id) {
        const row = await run<{ token: string | null; pid: number }>(statements.tryLock, [id.pgKey]);
        checkSameSession(row.pid);
        return row.token === null ? null : BigInt(row.token);
      },
      async waitLock(id) {
        const row = await run<{ token: string; pid: number }>(statements.waitLock, [id.pgKey], 0);
        checkSameSession(row.pid);
        return BigInt(row.token);
      },
      async unlock(id) {
        return (await run<{ released: boolean }>(statements.unlock, [id.pgKey])).released;
      },
      async limitIdle(ms) {
        await run("SELECT set_config('idle_session_timeout', $1, false)", [String(ms)]);
      },
      async ping() {
        await run("SELECT 1");
      },
      rows,
      end() {
        void client.end().catch(() => undefined);
      },
    };
  }

  return {
    backend: "postgres",
    idleGranularityMs: 1,
    open,
    async prepare(via) {
      await via.rows(`CREATE SEQUENCE IF NOT EXISTS ${sequence} AS bigint NO CYCLE`);
    },
    async view(via, id): Promise<SessionLockView> {
      const rows = await via.rows<{ granted: boolean; pid: number; label: string | null }>(statements.view, [id.pgClassId, id.pgObjId]);
      const holder = rows.find((row) => row.granted);
      return { holderSessionId: holder?.pid, holderLabel: holder?.label ?? "", waiters: rows.filter((row) => !row.granted).length };
    },
    async endHolder(via, id) {
      const rows = await via.rows<{ ended: boolean }>(statements.endHolder, [id.pgClassId, id.pgObjId]);
      return rows.some((row) => row.ended);
    },
    async cancelWait(via, victim) {
      await via.rows("SELECT pg_cancel_backend($1)", [victim.sessionId]);
    },
  };
}

/** 57014: the statement was cancelled (`pg_cancel_backend`); the session itself is fine. */
function isCancelled(error: unknown): boolean {
  return (error as { code?: unknown }).code === "57014";
}
