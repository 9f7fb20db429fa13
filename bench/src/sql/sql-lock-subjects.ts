import { SqlLockProvider } from "@distlock/sql";
import pg from "pg";

/** An open lock client: `acquire` resolves with the release function. */
export interface OpenSqlSubject {
  acquire(key: string, ttlMs: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One way of locking that a SQL scenario measures. */
export interface SqlLockSubject {
  readonly id: string;
  readonly name: string;
  /** How it was configured, printed under the table. */
  readonly settings: string;
  open(url: string): Promise<OpenSqlSubject>;
}

function distlock(provider: SqlLockProvider): OpenSqlSubject {
  return {
    async acquire(key, ttlMs) {
      const lock = await provider.acquire(key, { ttlMs });
      return () => lock.release();
    },
    close: () => provider.close(),
  };
}

export const DISTLOCK_NOTIFY: SqlLockSubject = {
  id: "notify",
  name: "distlock (LISTEN/NOTIFY)",
  settings: "SqlLockProvider from the URL, default options (pool of 10, listen on, watchdog on)",
  open: async (url) => distlock(new SqlLockProvider({ url, purgeIntervalMs: 0 })),
};

export const DISTLOCK_PREPARED: SqlLockSubject = {
  id: "prepared",
  name: "distlock (LISTEN/NOTIFY, prepared statements)",
  settings: "as above plus preparedStatements: true (named statements, parsed and planned once per connection)",
  open: async (url) => distlock(new SqlLockProvider({ url, preparedStatements: true, purgeIntervalMs: 0 })),
};

export const DISTLOCK_POLLING: SqlLockSubject = {
  id: "polling",
  name: "distlock (polling)",
  settings: "SqlLockProvider with listen: false (jittered backoff 5 ms doubling to 500 ms, bounded by the lease)",
  open: async (url) => distlock(new SqlLockProvider({ url, listen: false, purgeIntervalMs: 0 })),
};

export const DISTLOCK_SQLITE: SqlLockSubject = {
  id: "sqlite",
  name: "distlock (SQLite file)",
  settings: "SqlLockProvider on a sqlite: file in a temp dir (WAL, synchronous=NORMAL, busy timeout 5 s)",
  open: async (url) => distlock(new SqlLockProvider({ url, purgeIntervalMs: 0 })),
};

/** The floor: session-bound advisory locks on one dedicated connection, no table, no expiry, no fencing. */
export const ADVISORY_FLOOR: SqlLockSubject = {
  id: "advisory",
  name: "pg_try_advisory_lock floor",
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

export const SQL_LOCK_SUBJECTS: Readonly<Record<string, SqlLockSubject>> = Object.freeze({
  [DISTLOCK_NOTIFY.id]: DISTLOCK_NOTIFY,
  [DISTLOCK_PREPARED.id]: DISTLOCK_PREPARED,
  [DISTLOCK_POLLING.id]: DISTLOCK_POLLING,
  [DISTLOCK_SQLITE.id]: DISTLOCK_SQLITE,
  [ADVISORY_FLOOR.id]: ADVISORY_FLOOR,
});
