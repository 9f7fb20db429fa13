import { InvalidConfigError } from "@distlock/core";
import { CallDeadlines } from "@distlock/core/internal";
import type { SessionPermitDialect, SessionPermitRow } from "../session/semaphore/session-permit-dialect.js";
import type { SessionConnection, SessionDialect, SessionLockView } from "../session/session-connection.js";
import type { SessionLockId } from "../session/session-lock-id.js";
import { type SessionStatements, startSession } from "../session/start-session.js";
import { watchConnectionLoss } from "../session/watch-connection-loss.js";
import type { Mysql2ConnectionOptions, Mysql2Module } from "./mysql-client-api.js";

/** What mysql2 answers a statement with. */
type Mysql2Callback = (error: unknown, result: unknown) => void;

/** The slice of a mysql2 `Connection` a session uses: the callback forms, without mysql2's per-query timer. */
interface Mysql2SessionConnection {
  connect(callback: (error: unknown) => void): void;
  /** A text-protocol statement, its parameters inlined by mysql2. */
  query(sql: string, values: unknown[], callback: Mysql2Callback): unknown;
  /** A server-side prepared statement, prepared on first use and kept per connection by its text. */
  execute(sql: string, values: unknown[], callback: Mysql2Callback): unknown;
  /** "error": the connection failed (fatal); "end": it closed. */
  on(event: "error" | "end", listener: (error?: unknown) => void): unknown;
  /** Closes the socket at once. */
  destroy(): void;
}

export interface MysqlSessionSettings {
  readonly config: Mysql2ConnectionOptions;
  readonly table: string;
  readonly queryTimeoutMs: number;
  /** The `url` option's field, named when the server or the connection cannot hold session locks. */
  readonly urlField: string;
  /** TCP keepalive: first probe after this much idle time. */
  readonly keepAliveInitialDelayMs: number;
}

/** `GET_LOCK`'s timeout for a wait: a year (a negative timeout is not "forever" on MariaDB, it returns NULL at once). */
const WAIT_SECONDS = 31_536_000;
/** `wait_timeout`'s largest value. */
const MAX_IDLE_SECONDS = 31_536_000;
/** MariaDB's `SEQUENCE` (10.3) is what lets the grant and its token share one statement. */
const MIN_MARIADB = [10, 3] as const;

/**
 * MySQL/MariaDB session locks: `GET_LOCK` / `RELEASE_LOCK` on a hashed name, tokens from a MariaDB sequence drawn by
 * `IF(GET_LOCK(…) = 1, NEXTVAL(…), NULL)` (IF evaluates only the branch it picks, so only a grant draws a token).
 */
export function mysqlSessionDialect(mysql2: Promise<Mysql2Module>, settings: MysqlSessionSettings): SessionDialect {
  const sequence = `${settings.table}_session_token`;
  const grant = (timeoutSeconds: number, prepared?: string) => {
    const sql = `SELECT IF(GET_LOCK(?, ${timeoutSeconds}) = 1, NEXTVAL(${sequence}), NULL) AS token, CONNECTION_ID() AS pid`;
    return (id: SessionLockId) => ({ sql, values: [id.mysqlName], prepared });
  };
  const statements: SessionStatements = {
    sessionId: "SELECT CONNECTION_ID() AS pid",
    // The hot path's two statements are server-side prepared statements (mysql2 keeps them per connection by text).
    tryLock: grant(0, "try_lock"),
    // Not prepared: a waiter's statement text, with the name inline, is how inspect counts waiters in PROCESSLIST.
    waitLock: grant(WAIT_SECONDS),
    // 1: released; 0: another session holds it; NULL: nobody does.
    unlock: (id) => ({ sql: "SELECT RELEASE_LOCK(?) AS released", values: [id.mysqlName], prepared: "unlock" }),
    limitIdle: (ms) => ({ sql: "SET SESSION wait_timeout = ?", values: [Math.min(MAX_IDLE_SECONDS, Math.ceil(ms / 1000))] }),
  };
  // A waiter's statement text names the lock (mysql2 inlines the parameters) and its state is "User lock" while it waits.
  const waiters = "SELECT COUNT(*) FROM information_schema.PROCESSLIST p WHERE p.STATE = 'User lock' AND p.INFO LIKE ? AND p.ID <> CONNECTION_ID()";
  const label =
    "SELECT a.ATTR_VALUE FROM performance_schema.session_connect_attrs a WHERE a.PROCESSLIST_ID = h.holder AND a.ATTR_NAME = 'program_name' LIMIT 1";
  const view = (labelled: boolean) =>
    `SELECT h.holder, ${labelled ? `(${label})` : "NULL"} AS label, (${waiters}) AS waiters FROM (SELECT IS_USED_LOCK(?) AS holder) h`;
  /** Cleared once the server refuses performance_schema (no privilege): inspect then shows no label. */
  let labelled = true;
  const session = {
    queryTimeoutMs: settings.queryTimeoutMs,
    urlField: settings.urlField,
    poolerHint: "a proxy that multiplexes connections, e.g. ProxySQL",
    keepsSession: isServerError,
    deadlines: new CallDeadlines(),
  };

  async function open(name: string): Promise<SessionConnection> {
    const client = (await mysql2).createConnection({
      ...settings.config,
      keepAliveInitialDelay: settings.keepAliveInitialDelayMs,
      connectAttributes: { program_name: name.slice(0, 64) },
    }) as unknown as Mysql2SessionConnection;
    const lost = watchConnectionLoss(client);
    return startSession(
      {
        lost,
        connect: () => new Promise((resolve, reject) => client.connect((error) => (error ? reject(error) : resolve()))),
        send({ sql, values, prepared }, done) {
          const answered = (error: unknown, result: unknown) => done(error, Array.isArray(result) ? result : []);
          if (prepared === undefined) client.query(sql, values, answered);
          else client.execute(sql, values, answered);
        },
        end: () => client.destroy(),
      },
      statements,
      session,
    );
  }

  return {
    backend: "mysql",
    idleGranularityMs: 1000,
    open,
    async prepare(via) {
      const [row] = await via.rows<{ version: string }>("SELECT VERSION() AS version");
      const version = row?.version ?? "";
      const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
      if (!version.includes("MariaDB") || major < MIN_MARIADB[0] || (major === MIN_MARIADB[0] && minor < MIN_MARIADB[1])) {
        throw new InvalidConfigError(
          settings.urlField,
          `mode=session on mysql:// needs MariaDB ≥ ${MIN_MARIADB.join(".")} (a SEQUENCE draws the fencing token in the grant's statement); the server is ${version}`,
        );
      }
      if (!(await tableExists(via, sequence))) await via.rows(`CREATE SEQUENCE IF NOT EXISTS ${sequence} NOCYCLE`);
    },
    async view(via, id): Promise<SessionLockView> {
      const values = [`%${id.mysqlName}%`, id.mysqlName];
      const rows = await via
        .rows<{ holder: number | string | null; label: string | null; waiters: number | string }>(view(labelled), values)
        .catch((error: unknown) => {
          if (!labelled || !isServerError(error)) throw error;
          labelled = false;
          return via.rows<{ holder: number | string | null; label: string | null; waiters: number | string }>(view(false), values);
        });
      const [row] = rows;
      const holder = row?.holder === null || row?.holder === undefined ? undefined : Number(row.holder);
      return { holderSessionId: holder, holderLabel: row?.label ?? "", waiters: Number(row?.waiters ?? 0) };
    },
    async endHolder(via, id) {
      const holder = await lockHolder(via, id.mysqlName);
      if (holder === undefined || holder === via.sessionId) return false;
      // Not atomic with the look-up: the session may have let go meanwhile (then KILL ends a session that may hold other keys).
      const killed = await via.rows("KILL CONNECTION ?", [holder]).then(
        () => true,
        (error: unknown) => {
          if (isServerError(error)) return false;
          throw error;
        },
      );
      if (killed) await untilNotHeldBy(via, id.mysqlName, holder);
      return killed;
    },
    async cancelWait(via, victim) {
      // The victim's GET_LOCK returns NULL (interrupted); a KILL QUERY that arrives after it returned does nothing.
      await via.rows("KILL QUERY ?", [victim.sessionId]);
    },
    permits: mysqlPermitDialect(`${settings.table}_session_permits`, sequence),
  };
}

/** Session-mode semaphores on MariaDB: the grants' table; a row is live while `IS_USED_LOCK` shows its session's tag lock. */
function mysqlPermitDialect(table: string, sequence: string): SessionPermitDialect {
  // The line's holder (the head) and the sessions queued for it (their GET_LOCK statement names it), not counting the
  // holder twice while the server hands the lock over; one row whatever the semaphore holds, joined with its grants.
  const waiters = `(IS_USED_LOCK(?) IS NOT NULL) + (SELECT COUNT(*) FROM information_schema.PROCESSLIST x
    WHERE x.STATE = 'User lock' AND x.INFO LIKE ? AND x.ID <> CONNECTION_ID() AND x.ID <> COALESCE(IS_USED_LOCK(?), 0))`;
  const read = `SELECT w.waiters, p.token, p.permits, p.permit_count, p.holder, IS_USED_LOCK(p.session_tag) IS NOT NULL AS live
    FROM (SELECT ${waiters} AS waiters) w LEFT JOIN ${table} p ON p.semaphore = ?`;
  return {
    async prepare(via) {
      if (await tableExists(via, table)) return;
      await via.rows(`CREATE TABLE IF NOT EXISTS ${table} (token BIGINT PRIMARY KEY, semaphore CHAR(63) NOT NULL, permits INT NOT NULL,
        permit_count INT NOT NULL, holder VARCHAR(1024) NOT NULL, session_tag CHAR(63) NOT NULL, KEY ${table}_semaphore (semaphore)) ENGINE=InnoDB`);
    },
    async read(via, semaphore, line) {
      type Row = { waiters: number | string; token: number | string | null; permits: number; permit_count: number; holder: string; live: number };
      const rows = await via.rows<Row>(read, [line.mysqlName, `%${line.mysqlName}%`, line.mysqlName, semaphore.mysqlName]);
      const grants: SessionPermitRow[] = rows.flatMap(({ token, permits, permit_count: count, holder, live }) =>
        token === null ? [] : [{ token: BigInt(token), permits, count, holder, live: Number(live) === 1 }],
      );
      return { rows: grants, waiters: Number(rows[0]?.waiters ?? 0) };
    },
    async insert(via, { semaphore, permits, count, holder, tag }) {
      // Two statements, both under the semaphore's mutex lock (the caller's): the token is the row's key.
      const [row] = await via.rows<{ token: number | string }>(`SELECT NEXTVAL(${sequence}) AS token`);
      const token = BigInt((row as { token: number | string }).token);
      await via.rows(`INSERT INTO ${table} (token, semaphore, permits, permit_count, holder, session_tag) VALUES (?, ?, ?, ?, ?, ?)`, [
        String(token),
        semaphore.mysqlName,
        permits,
        count,
        holder,
        tag.mysqlName,
      ]);
      return token;
    },
    async delete(via, tokens) {
      await via.rows(`DELETE FROM ${table} WHERE token IN (${tokens.map(() => "?").join(", ")})`, tokens.map(String));
    },
  };
}

/**
 * Whether the table (or sequence) exists. Asked before `CREATE … IF NOT EXISTS`, which requests an exclusive metadata
 * lock even when the object exists: that request would queue behind every GET_LOCK wait whose statement draws a token
 * (it keeps the sequence open while it waits) and hold up every later token draw behind it.
 */
async function tableExists(via: SessionConnection, name: string): Promise<boolean> {
  const rows = await via.rows("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", [name]);
  return rows.length > 0;
}

/** An error the server answered (a refused statement): the connection and its locks are fine. Not a timeout or a lost connection. */
function isServerError(error: unknown): boolean {
  const { errno, fatal, code } = error as { errno?: unknown; fatal?: unknown; code?: unknown };
  return typeof errno === "number" && fatal !== true && code !== "PROTOCOL_SEQUENCE_TIMEOUT";
}

/** How long a force-release waits for the server to free the lock of the session it killed. */
const KILLED_SESSION_WAIT_MS = 5_000;

/**
 * Waits (up to `KILLED_SESSION_WAIT_MS`) until lock `name` is no longer held by session `holder`: MariaDB's KILL
 * CONNECTION only marks the session, which frees its locks as its thread ends, so the key could still read held
 * right after a force-release that said it freed it.
 */
async function untilNotHeldBy(via: SessionConnection, name: string, holder: number): Promise<void> {
  const deadline = performance.now() + KILLED_SESSION_WAIT_MS;
  while ((await lockHolder(via, name)) === holder && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The session id holding lock `name`, or undefined when it is free. */
async function lockHolder(via: SessionConnection, name: string): Promise<number | undefined> {
  const [row] = await via.rows<{ holder: number | string | null }>("SELECT IS_USED_LOCK(?) AS holder", [name]);
  return row?.holder === null || row?.holder === undefined ? undefined : Number(row.holder);
}
