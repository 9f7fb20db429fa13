import { randomUUID } from "node:crypto";
import type { LockUrl } from "@distlock/core/driver";
import mysql from "mysql2/promise";
import { describeError } from "../doctor-errors.js";
import type { CheckList } from "../doctor-report.js";
import { checkMigrationState } from "./lock-table-migration-state.js";
import { checkServerClock } from "./server-clock-check.js";

const DEFAULT_PORT = 3306;
const MYSQL_TIMEOUT_MS = 5_000;

type Rows = Record<string, unknown>[];

/** MySQL/MariaDB: version, several GET_LOCKs per session, wait_timeout against the lease, migration state, clock. False when unreachable. */
export async function checkMysqlBackend(url: LockUrl, ttlMs: number, checks: CheckList): Promise<boolean> {
  const mode = url.params.get("mode") ?? "table";
  const [host] = url.hosts;
  const connection = await mysql
    .createConnection({
      host: host?.host,
      port: host?.port ?? DEFAULT_PORT,
      user: url.username,
      password: url.password,
      database: url.path || undefined,
      connectTimeout: MYSQL_TIMEOUT_MS,
    })
    .catch((error: unknown) => {
      checks.add("mysql.connect", "fail", `could not connect: ${describeError(error)}`, "check the host, port, database and credentials of the URL");
      return undefined;
    });
  if (connection === undefined) return false;
  connection.on("error", () => undefined);
  const query = async (sql: string, values: unknown[] = []) => (await connection.query(sql, values))[0] as Rows;
  try {
    const [{ version } = { version: "unknown" }] = await query("select version() as version");
    checks.ok("mysql.version", `${String(version).includes("MariaDB") ? "MariaDB" : "MySQL"} ${version}, lock mode ${mode}`);
    await checkSeveralLocks(query, mode, checks);
    if (mode === "session") await checkWaitTimeout(query, ttlMs, checks);
    else await checkMigrationState("mysql", url, (sql) => query(sql), checks);
    await checkServerClock("mysql.clock", async () => Number((await query("select unix_timestamp(now(6)) * 1000 as ms"))[0]?.ms), checks);
    return true;
  } finally {
    await connection.end().catch(() => connection.destroy());
  }
}

/** Session mode holds every lock of a connection with GET_LOCK: the server must keep several per session (MySQL 5.7.5+, MariaDB 10.0.2+). */
async function checkSeveralLocks(query: (sql: string, values?: unknown[]) => Promise<Rows>, mode: string, checks: CheckList): Promise<void> {
  const [a, b] = [`distlock-doctor:${randomUUID()}:a`, `distlock-doctor:${randomUUID()}:b`];
  try {
    await query("select get_lock(?, 0) as a, get_lock(?, 0) as b", [a, b]);
    const [held] = await query("select is_used_lock(?) = connection_id() as a, is_used_lock(?) = connection_id() as b", [a, b]);
    if (Number(held?.a) === 1 && Number(held?.b) === 1) checks.ok("mysql.get-lock", "one session holds several GET_LOCK locks at once");
    else
      checks.add(
        "mysql.get-lock",
        mode === "session" ? "fail" : "warn",
        "a second GET_LOCK released the first (a server before MySQL 5.7.5 / MariaDB 10.0.2)",
        "upgrade the server, or use ?mode=table",
      );
  } finally {
    await query("select release_lock(?), release_lock(?)", [a, b]).catch(() => undefined);
  }
}

/** Session mode sets the session's wait_timeout to its lease, so a vanished client's locks end with it; the server must take that value. */
async function checkWaitTimeout(query: (sql: string, values?: unknown[]) => Promise<Rows>, ttlMs: number, checks: CheckList): Promise<void> {
  const [server] = await query("select @@global.wait_timeout as seconds");
  const seconds = Math.ceil(ttlMs / 1000);
  await query("set session wait_timeout = ?", [seconds]);
  const [session] = await query("select @@session.wait_timeout as seconds");
  const found = `global wait_timeout ${server?.seconds} s; a session asking for ${seconds} s (the lease) got ${session?.seconds} s`;
  if (Number(session?.seconds) === seconds) checks.ok("mysql.wait-timeout", `${found}: a vanished client's locks end within its lease`);
  else
    checks.add(
      "mysql.wait-timeout",
      "fail",
      `${found}: a vanished client's locks outlive its lease`,
      "allow sessions to set wait_timeout (check proxies such as ProxySQL that rewrite it), or use ?mode=table",
    );
}
