import type { LockUrl } from "@distlock/core/driver";
import pg from "pg";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { checkMigrationState, lockTableOf } from "./lock-table-migration-state.js";
import { checkServerClock } from "./server-clock-check.js";

const DEFAULT_PORT = 5432;
/** Bounds connecting and waiting for a notification. */
const PG_TIMEOUT_MS = 5_000;

/** PostgreSQL: version, pooling against the lock mode, idle_session_timeout, LISTEN/NOTIFY, migrations, privileges, clock. False when unreachable. */
export async function checkPostgresBackend(url: LockUrl, checks: CheckList): Promise<boolean> {
  const mode = url.params.get("mode") ?? "table";
  const first = await connect(url).catch((error: unknown) => {
    checks.add("postgres.connect", "fail", `could not connect: ${describeError(error)}`, "check the host, port, database and credentials of the URL");
    return undefined;
  });
  if (first === undefined) return false;
  const second = await connect(url);
  try {
    const version = String((await first.query("show server_version")).rows[0]?.server_version);
    checks.ok("postgres.version", `PostgreSQL ${version}, lock mode ${mode}`);
    await checkPooling(first, second, mode, checks);
    if (mode === "session") await checkIdleSessionTimeout(first, checks);
    else {
      if (url.params.get("listen") !== "false") await checkListenNotify(first, second, checks);
      await checkMigrationState("postgres", url, async (sql) => (await first.query(sql)).rows, checks);
      await checkTablePrivileges(first, lockTableOf(url).table, checks);
    }
    await checkServerClock(
      "postgres.clock",
      async () => Number((await first.query("select extract(epoch from clock_timestamp()) * 1000 as ms")).rows[0]?.ms),
      checks,
    );
    return true;
  } finally {
    await Promise.allSettled([first.end(), second.end()]);
  }
}

async function connect(url: LockUrl): Promise<pg.Client> {
  const [host] = url.hosts;
  const client = new pg.Client({
    host: host?.host,
    port: host?.port ?? DEFAULT_PORT,
    user: url.username,
    password: url.password,
    database: url.path || undefined,
    connectionTimeoutMillis: PG_TIMEOUT_MS,
    application_name: "distlock-doctor",
  });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/**
 * Whether two client connections share one server session: the second opens a transaction and reads its backend pid
 * while the first is idle. A transaction pooler (PgBouncer pool_mode=transaction, most recently used connection first,
 * its default) hands it the first's server connection; a direct connection or a session pooler never does.
 */
async function checkPooling(first: pg.Client, second: pg.Client, mode: string, checks: CheckList): Promise<void> {
  const pidOf = async (client: pg.Client) => Number((await client.query("select pg_backend_pid() as pid")).rows[0]?.pid);
  const firstPid = await pidOf(first);
  await second.query("begin");
  const secondPid = await pidOf(second);
  await second.query("commit");
  if (firstPid !== secondPid) {
    checks.ok("postgres.pooling", "each client connection has a server session of its own (direct, or a session-mode pooler)");
    return;
  }
  const found = `two client connections ran on one server session (backend ${firstPid}): a transaction-pooling proxy such as PgBouncer pool_mode=transaction`;
  if (mode === "session")
    checks.add(
      "postgres.pooling",
      "fail",
      `${found}; session mode's advisory locks belong to a server session the pooler hands to other clients`,
      "connect session mode straight to PostgreSQL (or a session-mode pool), or use ?mode=table",
    );
  else checks.ok("postgres.pooling", `${found}; table mode is pooler-safe`);
}

async function checkIdleSessionTimeout(client: pg.Client, checks: CheckList): Promise<void> {
  try {
    const value = String((await client.query("show idle_session_timeout")).rows[0]?.idle_session_timeout);
    checks.ok(
      "postgres.idle-session-timeout",
      `idle_session_timeout exists (server default ${value}); session mode sets it per session to the lease, so a vanished client's locks end`,
    );
  } catch (error) {
    checks.add(
      "postgres.idle-session-timeout",
      "fail",
      `idle_session_timeout is missing: ${describeError(error)}`,
      "session mode needs PostgreSQL 14 or later; use ?mode=table on older servers",
    );
  }
}

/** A NOTIFY from one connection must reach a LISTEN on the other: waiters are woken that way (else they poll). */
async function checkListenNotify(listener: pg.Client, notifier: pg.Client, checks: CheckList): Promise<void> {
  const channel = `distlock_doctor_${process.pid}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const heard = new Promise<void>((resolve) => listener.on("notification", (message) => message.channel === channel && resolve()));
    await listener.query(`listen ${channel}`);
    await notifier.query(`notify ${channel}, 'ping'`);
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PG_TIMEOUT_MS);
    });
    const delivered = await Promise.race([heard.then(() => true), late]);
    if (delivered) checks.ok("postgres.listen-notify", "a NOTIFY reached a LISTEN on another connection: waiters are woken at once");
    else
      checks.add(
        "postgres.listen-notify",
        "warn",
        `a NOTIFY did not reach the LISTEN within ${PG_TIMEOUT_MS} ms: waiters fall back to polling`,
        "connect straight to PostgreSQL or through a session-mode pool, or set ?listen=false",
      );
  } catch (error) {
    checks.add(
      "postgres.listen-notify",
      "warn",
      `LISTEN/NOTIFY failed: ${describeError(error)}`,
      "grant the user LISTEN/NOTIFY, or set ?listen=false (waiters poll)",
    );
  } finally {
    clearTimeout(timer);
    await listener.query(`unlisten ${channel}`).catch(() => undefined);
  }
}

async function checkTablePrivileges(client: pg.Client, table: string, checks: CheckList): Promise<void> {
  const exists = (await client.query("select to_regclass($1) is not null as found", [table])).rows[0]?.found === true;
  const sql = exists
    ? "select has_table_privilege(current_user, $1, 'SELECT,INSERT,UPDATE,DELETE') as granted"
    : "select has_schema_privilege(current_user, current_schema(), 'CREATE') as granted";
  const granted = (await client.query(sql, exists ? [table] : [])).rows[0]?.granted === true;
  const what = exists ? `SELECT, INSERT, UPDATE and DELETE on "${table}"` : "CREATE in the current schema (to create the lock table)";
  if (granted) checks.ok("postgres.privileges", `the user has ${what}`);
  else
    checks.add(
      "postgres.privileges",
      "fail",
      `the user lacks ${what}`,
      exists
        ? `GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO <user>`
        : "GRANT CREATE ON SCHEMA <schema> TO <user>, or create the table with another user (migrateLockTable)",
    );
}
