import { CallDeadlines } from "@distlock/core/internal";
import type { SessionPermitDialect, SessionPermitRow } from "../session/semaphore/session-permit-dialect.js";
import type { SessionConnection, SessionDialect, SessionLockView } from "../session/session-connection.js";
import type { SessionLockId } from "../session/session-lock-id.js";
import { type SessionStatements, startSession } from "../session/start-session.js";
import { watchConnectionLoss } from "../session/watch-connection-loss.js";
import type { PgConnectionConfig, PgModule } from "./postgres-client-api.js";

/** What pg answers a statement with. */
type PgCallback = (error: Error | null, result: { rows: unknown[] }) => void;

/** A `pg.Query`: a statement that a client runs when handed it (a "submittable"), calling back with its answer. */
interface PgQuery {
  /** Set, the statement is prepared under this name the first time this connection runs it, and only bound after. */
  name: string | undefined;
}

/** The slice of a `pg.Client` a session uses: the callback forms, which make no promise and no per-query timer. */
interface PgSessionClient {
  connect(): Promise<unknown>;
  query(text: string, values: unknown[], callback: PgCallback): void;
  query(query: PgQuery): unknown;
  on(event: "error" | "end", listener: () => void): unknown;
  end(): Promise<void>;
}

/** The slice of the `pg` module a session uses. */
interface PgSessionModule {
  Client: new (config: PgConnectionConfig) => PgSessionClient;
  Query: new (text: string, values: unknown[], callback: PgCallback) => PgQuery;
}

export interface PostgresSessionSettings {
  readonly config: PgConnectionConfig;
  readonly table: string;
  /** The `url` option's field, named when the connection turns out not to be a session of its own. */
  readonly urlField: string;
  /** TCP keepalive: first probe after this much idle time. */
  readonly keepAliveInitialDelayMs: number;
}

/** PostgreSQL session locks: `pg_try_advisory_lock` / `pg_advisory_lock` on one 64-bit key, tokens from a sequence. */
export function postgresSessionDialect(pg: Promise<PgModule>, settings: PostgresSessionSettings): SessionDialect {
  const sequence = `${settings.table}_session_token`;
  const lockStatement = (sql: string, prepared?: string) => (id: SessionLockId) => ({ sql, values: [id.pgKey], prepared });
  const statements: SessionStatements = {
    sessionId: "SELECT pg_backend_pid() AS pid",
    // CASE evaluates the lock first: the token is drawn only after the grant, in the same statement.
    // The hot path's two statements are prepared: parsed and planned once per session (a session is one server backend).
    tryLock: lockStatement(
      `SELECT CASE WHEN pg_try_advisory_lock($1::int8) THEN nextval('${sequence}') END AS token, pg_backend_pid() AS pid`,
      "distlock_session_try_lock",
    ),
    // OFFSET 0 keeps the subquery (the wait) from being flattened: nextval runs after it returns.
    waitLock: lockStatement(
      `SELECT nextval('${sequence}') AS token, pg_backend_pid() AS pid FROM (SELECT pg_advisory_lock($1::int8) OFFSET 0) AS granted`,
      "distlock_session_wait_lock",
    ),
    unlock: lockStatement("SELECT pg_advisory_unlock($1::int8) AS released", "distlock_session_unlock"),
    limitIdle: (ms) => ({ sql: "SELECT set_config('idle_session_timeout', $1, false)", values: [String(ms)] }),
  };
  const thisKey = `l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`;
  const inspection = {
    view: `SELECT l.granted, l.pid, a.application_name AS label FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE ${thisKey}`,
    endHolder: `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l WHERE l.granted AND ${thisKey}`,
  };
  const session = {
    queryTimeoutMs: settings.config.query_timeout,
    deadlines: new CallDeadlines(),
    urlField: settings.urlField,
    poolerHint: "a pooler in transaction mode, e.g. PgBouncer",
    // 57014: the statement was cancelled (`pg_cancel_backend`); the session itself is fine.
    keepsSession: (error: unknown) => (error as { code?: unknown }).code === "57014",
    // 26000: a named statement this connection prepared is unknown to the server session that got it, which happens
    // only when a pooler (PgBouncer < 1.21 in transaction pooling) hands the connection's statements to another one.
    reachedAnotherSession: (error: unknown) => (error as { code?: unknown }).code === "26000",
  };

  async function open(label: string): Promise<SessionConnection> {
    // No client-wide query timeout: a wait may block as long as the caller allows; every other statement gets one.
    const { Client, Query } = (await pg) as unknown as PgSessionModule;
    const client = new Client({
      ...settings.config,
      query_timeout: 0,
      application_name: label.slice(0, 63),
      keepAliveInitialDelayMillis: settings.keepAliveInitialDelayMs,
    } as PgConnectionConfig);
    const lost = watchConnectionLoss(client);
    return startSession(
      {
        lost,
        connect: async () => void (await client.connect()),
        send({ sql, values, prepared }, done) {
          const answered: PgCallback = (error, result) => done(error, error === null ? result.rows : []);
          if (prepared === undefined) return void client.query(sql, values, answered);
          // Named once built: handed `{ name, text, values }`, pg would copy that config (property descriptors and
          // all) for every statement. Should a pg ever ignore a late name, the statement just runs unnamed.
          const query = new Query(sql, values, answered);
          query.name = prepared;
          client.query(query);
        },
        end: () => void client.end().catch(() => undefined),
      },
      statements,
      session,
    );
  }

  return {
    backend: "postgres",
    idleGranularityMs: 1,
    open,
    async prepare(via) {
      await via.rows(`CREATE SEQUENCE IF NOT EXISTS ${sequence} AS bigint NO CYCLE`);
    },
    async view(via, id): Promise<SessionLockView> {
      const rows = await via.rows<{ granted: boolean; pid: number; label: string | null }>(inspection.view, [id.pgClassId, id.pgObjId]);
      const holder = rows.find((row) => row.granted);
      return { holderSessionId: holder?.pid, holderLabel: holder?.label ?? "", waiters: rows.filter((row) => !row.granted).length };
    },
    async endHolder(via, id) {
      const rows = await via.rows<{ ended: boolean }>(inspection.endHolder, [id.pgClassId, id.pgObjId]);
      return rows.some((row) => row.ended);
    },
    async cancelWait(via, victim) {
      await via.rows("SELECT pg_cancel_backend($1)", [victim.sessionId]);
    },
    permits: postgresPermitDialect(`${settings.table}_session_permits`, sequence),
  };
}

/** An advisory lock of this database on the 64-bit key `key` (an SQL expression), as `pg_locks` shows it. */
const advisoryLockOn = (key: string) => `l.locktype = 'advisory' AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = ((${key} >> 32) & 4294967295)::oid AND l.objid = (${key} & 4294967295)::oid`;

/** Session-mode semaphores on PostgreSQL: the grants' table; a row is live while `pg_locks` shows its session's tag lock. */
function postgresPermitDialect(table: string, sequence: string): SessionPermitDialect {
  // One row whatever the semaphore holds: the line's waiters, joined with the grants' rows (if any).
  const read = `SELECT w.waiters, p.token, p.permits, p.permit_count, p.holder,
      EXISTS (SELECT 1 FROM pg_locks l WHERE l.granted AND ${advisoryLockOn("p.session_tag")}) AS live
    FROM (SELECT count(*) AS waiters FROM pg_locks l WHERE ${advisoryLockOn("$2::int8")}) w
    LEFT JOIN ${table} p ON p.semaphore = $1::int8`;
  return {
    async prepare(via) {
      const create = async () => {
        await via.rows(`CREATE TABLE IF NOT EXISTS ${table} (token bigint PRIMARY KEY, semaphore bigint NOT NULL, permits integer NOT NULL,
          permit_count integer NOT NULL, holder text NOT NULL, session_tag bigint NOT NULL)`);
        await via.rows(`CREATE INDEX IF NOT EXISTS ${table}_semaphore ON ${table} (semaphore)`);
      };
      // Two sessions creating the table at once: one of them fails on the catalog's unique index; the second try sees it.
      await create().catch(create);
    },
    async read(via, semaphore, line) {
      type Row = { waiters: string; token: string | null; permits: number; permit_count: number; holder: string; live: boolean };
      const rows = await via.rows<Row>(read, [semaphore.pgKey, line.pgKey]);
      const grants: SessionPermitRow[] = rows.flatMap(({ token, permits, permit_count: count, holder, live }) =>
        token === null ? [] : [{ token: BigInt(token), permits, count, holder, live }],
      );
      return { rows: grants, waiters: Number(rows[0]?.waiters ?? 0) };
    },
    async insert(via, { semaphore, permits, count, holder, tag }) {
      const [row] = await via.rows<{ token: string }>(
        `INSERT INTO ${table} (token, semaphore, permits, permit_count, holder, session_tag) VALUES (nextval('${sequence}'), $1::int8, $2, $3, $4, $5::int8) RETURNING token`,
        [semaphore.pgKey, permits, count, holder, tag.pgKey],
      );
      return BigInt((row as { token: string }).token);
    },
    async delete(via, tokens) {
      await via.rows(`DELETE FROM ${table} WHERE token = ANY($1::int8[])`, [tokens.map(String)]);
    },
  };
}
