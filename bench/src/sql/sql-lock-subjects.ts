import { randomUUID } from "node:crypto";
import { SqlLockProvider, type SqlLockProviderOptions } from "@distlock/sql";
import mysql from "mysql2/promise";
import pg from "pg";
import { type LockSubject, providerSubject } from "../harness/index.js";

/** SqlLockProvider on the subject's URL with `options`; the periodic purge is off so it does not run inside a window. */
function distlock(id: string, name: string, settings: string, options: Omit<SqlLockProviderOptions, "url"> = {}): LockSubject {
  return { id, name, role: "distlock", settings, open: async (url) => providerSubject(new SqlLockProvider({ url, purgeIntervalMs: 0, ...options })) };
}

export const DISTLOCK_NOTIFY = distlock(
  "notify",
  "distlock (LISTEN/NOTIFY)",
  "SqlLockProvider from the URL, default options (pool of 10, listen on, watchdog on)",
);

export const DISTLOCK_PREPARED = distlock(
  "prepared",
  "distlock (LISTEN/NOTIFY, prepared statements)",
  "as above plus preparedStatements: true (named statements, parsed and planned once per connection)",
  { preparedStatements: true },
);

export const DISTLOCK_POLLING = distlock(
  "polling",
  "distlock (polling)",
  "SqlLockProvider with listen: false (waiters keep a place in the server-side line; the first polls every 5–25 ms, the rest every ≤ 250 ms)",
  { listen: false },
);

export const DISTLOCK_SESSION = distlock(
  "session",
  "distlock (session: advisory locks)",
  'SqlLockProvider with mode: "session" (pg_try_advisory_lock + nextval in one statement on a dedicated session, waits queued in pg_advisory_lock)',
  { mode: "session" },
);

export const DISTLOCK_MARIADB_SESSION = distlock(
  "mariadb-session",
  "distlock (session: GET_LOCK)",
  'SqlLockProvider on MariaDB with mode: "session" (IF(GET_LOCK(name, 0) = 1, NEXTVAL(seq), NULL) in one statement on a dedicated session, waits queued in GET_LOCK)',
  { mode: "session" },
);

export const DISTLOCK_SQLITE = distlock(
  "sqlite",
  "distlock (SQLite file)",
  "SqlLockProvider on a sqlite: file in a temp dir (WAL, synchronous=NORMAL, busy timeout 5 s)",
);

/** The floor: session-bound advisory locks on one dedicated connection, no table, no expiry, no fencing. */
export const ADVISORY_FLOOR: LockSubject = {
  id: "advisory",
  name: "pg_try_advisory_lock floor",
  role: "floor",
  settings: "one pg.Client; pg_try_advisory_lock(hashtext(key)) then pg_advisory_unlock(hashtext(key)) (uncontended, so no retry loop)",
  async open(url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      async acquire(key) {
        const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock(hashtext($1)) as ok", [key]);
        if (rows[0]?.ok !== true) throw new Error(`advisory lock ${key} is taken`);
        return async () => {
          await client.query("select pg_advisory_unlock(hashtext($1))", [key]);
        };
      },
      close: () => client.end(),
    };
  },
};

/**
 * Table mode's own statements replayed on one bare pg.Client: the acquire and release functions distlock's default
 * provider calls (table `distlock_locks`, created by a provider first), with no core, pool, kysely, watchdog or
 * notification listener around them. Table mode's overhead is distlock's ops/s against this.
 */
export const TABLE_STATEMENT_REPLAY: LockSubject = {
  id: "table-replay",
  name: "table mode's statements on a bare pg.Client",
  role: "floor",
  settings: "one pg.Client; select * from distlock_locks_acquire(key, owner, holder, ttl, 0), then distlock_locks_release(key, owner)",
  async open(url) {
    const migrator = new SqlLockProvider({ url, purgeIntervalMs: 0 });
    await (await migrator.acquire("bench:migrate")).release();
    await migrator.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const owner = randomUUID();
    return {
      async acquire(key, ttlMs) {
        const { rows } = await client.query<{ hold_count: string }>(
          "select * from distlock_locks_acquire($1, $2, $3, cast($4 as bigint), cast($5 as bigint))",
          [key, owner, "bench", ttlMs, 0],
        );
        if (Number(rows[0]?.hold_count) <= 0) throw new Error(`table lock ${key} is taken`);
        return async () => {
          await client.query("select * from distlock_locks_release($1, $2)", [key, owner]);
        };
      },
      close: () => client.end(),
    };
  },
};

/** The MariaDB floor: `GET_LOCK` / `RELEASE_LOCK` on one dedicated connection, no table, no expiry, no fencing. */
export const GET_LOCK_FLOOR: LockSubject = {
  id: "get-lock",
  name: "GET_LOCK floor",
  role: "floor",
  settings: "one mysql2 connection; GET_LOCK(key, 0) then RELEASE_LOCK(key) (uncontended, so no retry loop)",
  async open(url) {
    const connection = await mysql.createConnection({ uri: url });
    return {
      async acquire(key) {
        const [rows] = await connection.query<mysql.RowDataPacket[]>("SELECT GET_LOCK(?, 0) AS ok", [key]);
        if (Number(rows[0]?.ok) !== 1) throw new Error(`GET_LOCK ${key} is taken`);
        return async () => {
          await connection.query("SELECT RELEASE_LOCK(?)", [key]);
        };
      },
      close: () => connection.end(),
    };
  },
};
