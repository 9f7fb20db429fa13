import { describe, expect, it } from "vitest";
import { describeKeySets } from "../../test/key-set-tests.js";
import { postgresWithPool } from "../../test/postgres-with-pool.js";
import { describeSqlSemaphore } from "../../test/semaphore-tests.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const { server, pool } = await postgresWithPool();

describeSqlSemaphore("postgres", server.url);
describeKeySets("postgres", server.url);

describe("postgres: multi-key sets and deadlocks", () => {
  it("a set the database rolls back to break a deadlock is refused, never failed, and leaves nothing held", async () => {
    const locks = new SqlLockProvider({ pgPool: pool, purgeIntervalMs: 0 });
    const other = await pool.connect();
    try {
      const keys = [`deadlock-${crypto.randomUUID()}:a`, `deadlock-${crypto.randomUUID()}:b`].sort();
      await (await locks.acquireAll(keys, { ttlMs: 30_000 })).release();
      // Another transaction holds b's row and, once the set holds a's and waits for b's, asks for a's: a cycle. Its own
      // deadlock check is put off, so the set's (after the server's 1 s) finds the cycle and rolls the set back.
      await other.query("begin");
      await other.query("set local deadlock_timeout = '60s'");
      await other.query("select 1 from distlock_locks where lock_key = $1 for update", [keys[1]]);
      const attempt = locks.tryAcquireAll(keys, { ttlMs: 30_000 });
      const setWaits = async () =>
        (await pool.query("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%_acquire_all%'")).rows[0].n;
      await expect.poll(setWaits, { timeout: 5_000 }).toBe(1);
      const closing = other.query("update distlock_locks set holder = holder where lock_key = $1", [keys[0]]);
      expect(await attempt).toBeNull();
      await closing;
      await other.query("rollback");
      for (const key of keys) expect(await locks.inspect(key)).toBeNull();
      await (await locks.acquireAll(keys, { ttlMs: 30_000 })).release();
    } finally {
      other.release();
      await locks.close();
    }
  });
});

describe("postgres: semaphore notifications", () => {
  it("a release that frees permits notifies the first waiter in line by a hash of its secret on the table's channel, and a release nobody waits for sends nothing", async () => {
    const listening = await pool.connect();
    const payloads: string[] = [];
    listening.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listening.query('LISTEN "distlock_distlock_locks"');
    // Without LISTEN of their own, the waiters poll; the notifications are the releases' doing.
    const [holding, waiting] = [new SqlLockProvider({ url: server.url, listen: false }), new SqlLockProvider({ url: server.url, listen: false })];
    try {
      const name = `notify-${crypto.randomUUID()}`;
      const forName = () => payloads.filter((payload) => payload.endsWith(`:${name}`));
      const holder = await holding.semaphore(name, { permits: 1 }).acquire({ ttlMs: 30_000 });
      const waiter = waiting.semaphore(name, { permits: 1 }).acquire({ ttlMs: 30_000 });
      await expect.poll(async () => (await holding.semaphore(name, { permits: 1 }).inspect())?.waiters, { timeout: 5_000 }).toBe(1);
      await holder.release();
      await expect.poll(forName, { timeout: 5_000 }).toEqual([expect.stringMatching(/^[0-9a-f]{64}:/)]);
      await (await waiter).release();
      // Notifications arrive in commit order: once a later one is here, none is still coming for the release above.
      const marker = `marker-${crypto.randomUUID()}`;
      await holding.acquire(marker, { ttlMs: 30_000 });
      await holding.forceRelease(marker);
      await expect.poll(() => payloads.includes(`:${marker}`), { timeout: 5_000 }).toBe(true);
      expect(forName()).toHaveLength(1);
    } finally {
      await Promise.all([holding.close(), waiting.close()]);
      listening.release();
    }
  });
});

describe("postgres: the pool of a URL provider", () => {
  /** Backends whose last statement called one of `table`'s functions. */
  const backendsOf = async (table: string) =>
    (await pool.query("select count(*)::int as n from pg_stat_activity where query like $1 and query not like '%pg_stat_activity%'", [`%${table}_%`])).rows[0]
      .n;

  it("with a pool of one, a set's transaction and an inspect get the client that acquires and releases keep checked out", async () => {
    const locks = new SqlLockProvider({ url: server.url, poolSize: 1, listen: false, purgeIntervalMs: 0 });
    try {
      const key = `lane-${crypto.randomUUID()}`;
      await (await locks.acquire(key, { ttlMs: 30_000 })).release();
      await (await locks.acquire(key, { ttlMs: 30_000 })).release();
      const set = await locks.acquireAll([`${key}:a`, `${key}:b`], { ttlMs: 30_000, waitMs: 2_000 });
      expect((await locks.inspect(`${key}:a`))?.holdCount).toBe(1);
      await set.release();
      const lock = await locks.acquire(key, { ttlMs: 30_000 });
      expect((await locks.inspect(key))?.fencingToken).toBe(lock.fencingToken);
      await lock.release();
    } finally {
      await locks.close();
    }
  });

  it("with prepared statements, the kept client and kysely's checkouts both run them", async () => {
    const locks = new SqlLockProvider({ url: server.url, preparedStatements: true, poolSize: 2, listen: false, purgeIntervalMs: 0 });
    try {
      const key = `prepared-${crypto.randomUUID()}`;
      const first = await locks.acquire(key, { ttlMs: 30_000 });
      await first.release();
      const second = await locks.acquire(key, { ttlMs: 30_000 });
      expect(second.fencingToken).toBeGreaterThan(first.fencingToken as bigint);
      await expect(locks.tryAcquire(key, { ttlMs: 30_000 })).resolves.toBeNull();
      await second.release();
      const set = await locks.acquireAll([key, `${key}:b`], { ttlMs: 30_000, waitMs: 2_000 });
      expect((await locks.inspect(key))?.fencingToken).toBe(set.locks[0]?.fencingToken);
      await set.release();
      expect(await locks.inspect(key)).toBeNull();
    } finally {
      await locks.close();
    }
  });

  it("a kept connection the server ends is given up: acquires go on, at most one of them failed", async () => {
    const table = `lane_${crypto.randomUUID().slice(0, 8)}`;
    const locks = new SqlLockProvider({ url: server.url, table, listen: false, purgeIntervalMs: 0 });
    try {
      await (await locks.acquire("lane-key", { ttlMs: 30_000 })).release();
      expect(await backendsOf(table)).toBe(1);
      await pool.query("select pg_terminate_backend(pid) from pg_stat_activity where query like $1 and query not like '%pg_stat_activity%'", [`%${table}_%`]);
      await expect.poll(() => backendsOf(table), { timeout: 5_000 }).toBe(0);
      let failures = 0;
      const acquires = async () => {
        try {
          await (await locks.acquire("lane-key", { ttlMs: 30_000 })).release();
          return true;
        } catch (error) {
          expect(error).toMatchObject({ code: "BACKEND_UNAVAILABLE" });
          failures += 1;
          return false;
        }
      };
      await expect.poll(acquires, { timeout: 5_000 }).toBe(true);
      expect(failures).toBeLessThanOrEqual(1);
    } finally {
      await locks.close();
    }
  });

  it("close ends the pool even when its only statements were acquires and releases, which skip kysely", async () => {
    const table = `direct_${crypto.randomUUID().slice(0, 8)}`;
    const migrator = new SqlLockProvider({ url: server.url, table, purgeIntervalMs: 0 });
    await migrator.migrate();
    await migrator.close();
    const locks = new SqlLockProvider({ url: server.url, table, migrate: false, listen: false, purgeIntervalMs: 0 });
    const lock = await locks.acquire("direct-key", { ttlMs: 30_000 });
    expect(lock.fencingToken).toBeGreaterThan(0n);
    await lock.release();
    // The pool's one connection last ran the table's release function.
    expect(await backendsOf(table)).toBe(1);
    await locks.close();
    await expect.poll(() => backendsOf(table), { timeout: 5_000 }).toBe(0);
  });
});
