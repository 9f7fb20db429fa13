import { randomUUID } from "node:crypto";
import { abortByDeadline } from "@distlock/conformance";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { type MariadbServer, type PostgresServer, startMariadb, startPostgres } from "@distlock/test-servers";
import { createPool } from "mysql2";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { eventually, rejectionOf } from "../test/settle.js";
import { SqlLockProvider } from "./sql-lock-provider.js";

const SECRET = "not-the-password-9f3a";

/** What the fault tests need from one database under test. */
interface Target {
  readonly server: PostgresServer | MariadbServer;
  readonly url: string;
  /** A URL whose login the server refuses, with SECRET as the password. */
  readonly refusedLoginUrl: string;
  /** A provider on a pool of two connections the test owns, plus a way to occupy them with other work. */
  sharedPool(): Promise<{ provider: SqlLockProvider; occupyAll(): Promise<() => void>; canCheckOutAll(): Promise<boolean>; end(): Promise<void> }>;
}

const [postgres, mariadb] = await Promise.all([startPostgres(), startMariadb()]);
afterAll(() => Promise.all([postgres.close(), mariadb.close()]));

const TARGETS: Record<string, Target> = {
  postgres: {
    server: postgres,
    url: postgres.url,
    // The test server trusts every password of a real role, so the refused login is an unknown role.
    refusedLoginUrl: `postgres://ghost:${SECRET}@127.0.0.1:${postgres.port}/postgres`,
    async sharedPool() {
      const pool = new pg.Pool({ connectionString: postgres.url, max: 2, connectionTimeoutMillis: 500 });
      const provider = new SqlLockProvider({ pgPool: pool, purgeIntervalMs: 0 });
      return {
        provider,
        async occupyAll() {
          const clients = [await pool.connect(), await pool.connect()];
          return () => {
            for (const client of clients) client.release();
          };
        },
        async canCheckOutAll() {
          const clients = await Promise.all([pool.connect(), pool.connect()]);
          for (const client of clients) client.release();
          return pool.waitingCount === 0 && pool.totalCount <= 2;
        },
        end: () => pool.end(),
      };
    },
  },
  mariadb: {
    server: mariadb,
    url: mariadb.userUrl,
    refusedLoginUrl: `mysql://distlock:${SECRET}@127.0.0.1:${mariadb.port}/test`,
    async sharedPool() {
      const pool = createPool({ uri: mariadb.userUrl, connectionLimit: 2 });
      const provider = new SqlLockProvider({ mysqlPool: pool, connectTimeoutMs: 500, purgeIntervalMs: 0 });
      const both = () => Promise.all([pool.promise().getConnection(), pool.promise().getConnection()]);
      return {
        provider,
        async occupyAll() {
          const connections = await both();
          return () => {
            for (const connection of connections) connection.release();
          };
        },
        async canCheckOutAll() {
          const connections = await Promise.race([both(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000))]);
          for (const connection of connections ?? []) connection.release();
          return connections !== undefined;
        },
        end: () => pool.promise().end(),
      };
    },
  },
};

const providers: SqlLockProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

function provider(url: string, options: Partial<ConstructorParameters<typeof SqlLockProvider>[0]> = {}): SqlLockProvider {
  const created = new SqlLockProvider({ url, connectTimeoutMs: 1_000, queryTimeoutMs: 1_000, purgeIntervalMs: 0, ...options });
  providers.push(created);
  return created;
}

describe.each(Object.keys(TARGETS))("%s faults", (name) => {
  const target = TARGETS[name] as Target;
  const key = () => `faults:${randomUUID()}`;

  it("a refused login fails with BACKEND_UNAVAILABLE and the password appears nowhere in the error", async () => {
    const error = await rejectionOf(provider(target.refusedLoginUrl).tryAcquire(key()));
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect((error as Error).message).not.toContain(SECRET);
    expect(String((error as Error).cause)).not.toContain(SECRET);
    expect((error as Error).message).toContain(`${name === "postgres" ? "postgres" : "mysql"}://`);
  });

  it("an unreachable server fails with BACKEND_UNAVAILABLE within the connect timeout", async () => {
    const started = monotonicNow();
    const error = await rejectionOf(provider(target.url.replace(`:${target.server.port}/`, ":1/")).acquire(key(), { waitMs: 200 }));
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect(monotonicNow() - started).toBeLessThan(3_000);
  });

  it("a pool exhausted by other work makes acquire fail cleanly, then works again and leaks no connection", async () => {
    const shared = await target.sharedPool();
    try {
      await shared.provider.migrate();
      const freeAll = await shared.occupyAll();
      const started = monotonicNow();
      const error = await rejectionOf(shared.provider.acquire(key(), { waitMs: 300 }));
      expect(LockError.is(error, LockErrorCode.BackendUnavailable) || LockError.is(error, LockErrorCode.LockTimeout), String(error)).toBe(true);
      expect(monotonicNow() - started).toBeLessThan(2_000);
      freeAll();
      const lock = await shared.provider.acquire(key(), { waitMs: 2_000 });
      await lock.release();
      await shared.provider.close();
      expect(await shared.canCheckOutAll()).toBe(true);
    } finally {
      await shared.provider.close();
      await shared.end();
    }
  });

  it("a database restarted while a lock is held: the watchdog renews again once it is back", async () => {
    const locks = provider(target.url);
    const id = key();
    const lock = await locks.acquire(id, { ttlMs: 10_000 });
    await target.server.kill();
    await target.server.start();
    const before = lock.validUntil;
    expect(await eventually(() => lock.validUntil > before || lock.signal.aborted, 8_000)).toBe(true);
    expect(lock.signal.aborted).toBe(false);
    expect(await provider(target.url).tryAcquire(id)).toBeNull();
    expect((await locks.inspect(id))?.holder).toBe(lock.holder);
    await lock.release();
  });

  it("a database down for longer than the lease: signal aborts with LOCK_LOST by the deadline, the key is usable after restart", async () => {
    const locks = provider(target.url);
    const id = key();
    const lock = await locks.acquire(id, { ttlMs: 1_500 });
    await target.server.kill();
    try {
      expect(await abortByDeadline(lock.signal, lock.validUntil, 3_000)).toBe("in time");
      expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
    } finally {
      await target.server.start();
    }
    const next = await provider(target.url).acquire(id, { ttlMs: 1_500, waitMs: 5_000 });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
  });
});
