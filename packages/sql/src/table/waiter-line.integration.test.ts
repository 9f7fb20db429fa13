import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Lock, LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { startMariadb, startPostgres } from "@distlock/test-servers";
import BetterSqlite3 from "better-sqlite3";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { rejectionOf } from "../../test/settle.js";
import { openSqlConnection } from "../connection/open-sql-connection.js";
import { resolveSqlLockOptions } from "../options/resolve-sql-lock-options.js";
import { SqlLockProvider } from "../sql-lock-provider.js";
import { WAITER_CLAIM_MS } from "../waiting/wait-in-line.js";
import { dialectStatements } from "./dialect-statements.js";

const WORKER = fileURLToPath(new URL("../../test/waiting-worker.mjs", import.meta.url));
/** How long a forked worker may take to start, import the package and join the line on a loaded CI machine (over 5 s once). */
const WORKER_START_MS = 30_000;
const dir = mkdtempSync(join(tmpdir(), "distlock-line-"));
const [mariadb, postgres] = await Promise.all([startMariadb(), startPostgres()]);
afterAll(async () => {
  await Promise.all([mariadb.close(), postgres.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** A polling dialect under test, and a way to count the places in its line of waiters. */
interface Target {
  readonly url: string;
  places(key: string): Promise<number>;
}

const TARGETS: Record<string, Target> = {
  sqlite: {
    url: `sqlite:${join(dir, "line.sqlite")}`,
    async places(key) {
      const db = new BetterSqlite3(join(dir, "line.sqlite"), { readonly: true });
      try {
        return (db.prepare("select count(*) as n from distlock_locks_waiter where lock_key = ?").get(key) as { n: number }).n;
      } finally {
        db.close();
      }
    },
  },
  mariadb: {
    url: mariadb.userUrl,
    async places(key) {
      const connection = await createConnection(mariadb.userUrl);
      try {
        const [rows] = await connection.query("select count(*) as n from distlock_locks_waiter where lock_key = ?", [key]);
        return Number((rows as { n: number }[])[0]?.n);
      } finally {
        await connection.end();
      }
    },
  },
  postgres: {
    url: postgres.url,
    async places(key) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>("select count(*) as n from distlock_locks_waiter where lock_key = $1", [key]);
        return Number(rows[0]?.n);
      } finally {
        await client.end();
      }
    },
  },
};

const providers: SqlLockProvider[] = [];
const workers: ChildProcess[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) worker.kill("SIGKILL");
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

for (const [name, target] of Object.entries(TARGETS)) {
  const provider = () => {
    const created = new SqlLockProvider({ url: target.url, purgeIntervalMs: 0 });
    providers.push(created);
    return created;
  };

  describe(`${name}: the line of waiters`, () => {
    it("a waiter gets the key while holders that release loop straight back into acquire", async () => {
      const key = `fair-${randomUUID()}`;
      const looping = new AbortController();
      const rounds = [0, 0, 0];
      const loopers = [provider(), provider(), provider()].map(async (locks, i) => {
        while (!looping.signal.aborted) {
          const lock = await locks.acquire(key, { ttlMs: 5_000, signal: looping.signal }).catch((error: unknown) => {
            if (looping.signal.aborted) return undefined;
            throw error;
          });
          if (lock === undefined) return;
          rounds[i] = (rounds[i] ?? 0) + 1;
          // Time itself: each hold lasts a few ms, as work would.
          await new Promise((resolve) => setTimeout(resolve, 2));
          await lock.release();
        }
      });
      try {
        // Every looper has held the key, released it and come straight back for it.
        await expect.poll(() => Math.min(...rounds), { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
        const startedAt = monotonicNow();
        const lock = await provider().acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
        const waitedMs = monotonicNow() - startedAt;
        await lock.release();
        // Three loopers ahead of it, each holding a few ms: without the line this wait runs into seconds.
        expect(waitedMs).toBeLessThan(1_000);
      } finally {
        looping.abort();
        await Promise.all(loopers);
      }
    });

    /** Runs `test` on the line of a key a provider holds, driven statement by statement; lets go of both after. */
    const onHeldLine = async (test: (line: Line, key: string) => Promise<void>) => {
      const key = `line-${randomUUID()}`;
      const holder = await provider().acquire(key, { ttlMs: 30_000 });
      const line = openLine(target.url);
      try {
        await test(line, key);
      } finally {
        await line.close();
        await holder.release();
      }
    };

    it("places taken one after another keep that order, even within one millisecond", () =>
      onHeldLine(async (line, key) => {
        // Secrets sorting against the order of joining: a tie broken by secret would reverse them.
        const secrets = Array.from({ length: 30 }, (_, i) => `waiter-${99 - i}`);
        for (const ownerSecret of secrets) {
          expect((await line.join(key, ownerSecret)).acquired).toBe(false);
        }
        const ahead: number[] = [];
        for (const ownerSecret of secrets) ahead.push(await line.ahead(key, ownerSecret));
        expect(ahead).toEqual(secrets.map((_, i) => i));
      }));

    it("waiters joining one line at the same instant all get a place", () =>
      onHeldLine(async (line, key) => {
        const secrets = Array.from({ length: 20 }, (_, i) => `together-${i}`);
        for (let poll = 0; poll < 3; poll++) {
          const results = await Promise.all(secrets.map((ownerSecret) => line.join(key, ownerSecret)));
          expect(results.filter((result) => result.acquired)).toEqual([]);
        }
        expect(await target.places(key)).toBe(secrets.length);
      }));

    it("a newcomer's tryAcquire yields a free key to a live waiter", async () => {
      const key = `yield-${randomUUID()}`;
      const holder = await provider().acquire(key, { ttlMs: 5_000 });
      const waiting = provider().acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
      await waitForPlaces(target, key, 1);
      await holder.release();
      // Whichever comes first, the newcomer never takes the key from the waiter.
      const newcomer = provider();
      const attempts: (Lock | null)[] = [];
      for (let i = 0; i < 20; i++) attempts.push(await newcomer.tryAcquire(key));
      const waiter = await waiting;
      expect(attempts.filter((lock) => lock !== null)).toEqual([]);
      expect(waiter.holdCount).toBe(1);
      await waiter.release();
    });

    it("a waiter that crashed in line holds up a free key for at most the claim window", async () => {
      const key = `crash-${randomUUID()}`;
      const holder = await provider().acquire(key, { ttlMs: 30_000 });
      const worker = fork(WORKER, [target.url, key], { stdio: "ignore", execArgv: [] });
      workers.push(worker);
      await waitForPlaces(target, key, 1, WORKER_START_MS);
      worker.kill("SIGKILL");
      await holder.release();
      const startedAt = monotonicNow();
      const lock = await provider().acquire(key, { ttlMs: 5_000, waitMs: WAITER_CLAIM_MS + 3_000 });
      const waitedMs = monotonicNow() - startedAt;
      expect(lock.holdCount).toBe(1);
      expect(waitedMs).toBeLessThan(WAITER_CLAIM_MS + 1_000);
      await lock.release();
    });

    it("a waiter that times out or is aborted leaves the line", async () => {
      const key = `leave-${randomUUID()}`;
      const holder = await provider().acquire(key, { ttlMs: 30_000 });
      const timedOut = await rejectionOf(provider().acquire(key, { waitMs: 150 }));
      expect(LockError.is(timedOut) && timedOut.code).toBe(LockErrorCode.LockTimeout);
      const aborting = new AbortController();
      const aborted = rejectionOf(provider().acquire(key, { signal: aborting.signal }));
      await waitForPlaces(target, key, 1);
      aborting.abort(new Error("gave up"));
      expect(((await aborted) as Error).message).toBe("gave up");
      expect(await target.places(key)).toBe(0);
      await holder.release();
      // Nobody left in line, so a newcomer takes the free key at once.
      expect(await provider().tryAcquire(key)).not.toBeNull();
    });
  });
}

type Line = ReturnType<typeof openLine>;

/** The line of waiters on the provider's default table, driven statement by statement over a connection of its own. */
function openLine(url: string) {
  const options = resolveSqlLockOptions({ url });
  const connection = openSqlConnection(options);
  const statements = dialectStatements(options.source.dialect, options.table);
  return {
    join: (key: string, ownerSecret: string) => statements.attemptInLine(connection.db, { key, ownerSecret, holder: "line", ttlMs: 5_000 }),
    ahead: (key: string, ownerSecret: string) => statements.queue.ahead(connection.db, key, ownerSecret),
    close: () => connection.close(),
  };
}

/**
 * Resolves once the server shows `count` places in the line for `key` (each look is a fresh connection, so 20 ms apart),
 * failing after `timeoutMs`.
 */
async function waitForPlaces(target: Target, key: string, count: number, timeoutMs = 5_000): Promise<void> {
  await expect.poll(() => target.places(key), { timeout: timeoutMs, interval: 20 }).toBe(count);
}
