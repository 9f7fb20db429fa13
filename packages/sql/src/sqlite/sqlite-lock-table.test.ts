import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LockError, LockErrorCode } from "@distlock/core";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LATEST_LOCK_TABLE_MIGRATION, LockTableMigrationProvider } from "../migrations/lock-table-migration-provider.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const dir = mkdtempSync(join(tmpdir(), "distlock-sqlite-table-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const providers: SqlLockProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

function provider(file: string, options: Partial<ConstructorParameters<typeof SqlLockProvider>[0]> = {}): SqlLockProvider {
  const created = new SqlLockProvider({ url: `sqlite:${join(dir, file)}`, ...options });
  providers.push(created);
  return created;
}

describe("the SQLite lock table", () => {
  it("purging idle rows never deletes a live hold and never lowers a fencing token", async () => {
    const locks = provider("purge.sqlite", { purgeIntervalMs: 0 });
    const idle = await locks.acquire("idle");
    const idleToken = idle.fencingToken as bigint;
    await idle.release();
    const live = await locks.acquire("live", { ttlMs: 60_000 });
    // Time itself: the released row stays idle for longer than the 10 ms the purge asks for.
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await locks.purgeIdleLocks(10)).toBe(1);
    expect((await locks.inspect("live"))?.fencingToken).toBe(live.fencingToken);
    expect(live.signal.aborted).toBe(false);

    const again = await locks.acquire("idle");
    expect(again.fencingToken as bigint).toBeGreaterThan(idleToken);
    expect(again.fencingToken as bigint).toBeGreaterThan(live.fencingToken as bigint);
  });

  it("a row released moments ago is not idle yet and keeps its counter", async () => {
    const locks = provider("recent.sqlite", { purgeIntervalMs: 0 });
    const first = await locks.acquire("k");
    await first.release();
    expect(await locks.purgeIdleLocks(60_000)).toBe(0);
    expect((await locks.acquire("k")).fencingToken).toBe((first.fencingToken as bigint) + 1n);
  });

  it("with migrate off, statements fail with BACKEND_UNAVAILABLE until migrate() creates the table", async () => {
    const locks = provider("manual.sqlite", { migrate: false, table: "manual_locks" });
    const error = await locks.tryAcquire("k").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(LockError.is(error, LockErrorCode.BackendUnavailable)).toBe(true);
    await locks.migrate();
    expect((await locks.tryAcquire("k"))?.holdCount).toBe(1);
  });

  it("locks in differently named tables of one file are independent, and migrations keep their own history", async () => {
    const a = provider("tables.sqlite", { table: "locks_a" });
    const b = provider("tables.sqlite", { table: "locks_b" });
    expect(await a.tryAcquire("shared")).not.toBeNull();
    expect(await b.tryAcquire("shared")).not.toBeNull();
    const file = new BetterSqlite3(join(dir, "tables.sqlite"), { readonly: true });
    const tables = file.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[];
    file.close();
    expect(tables.map((t) => t.name)).toEqual([
      "locks_a",
      "locks_a_migration",
      "locks_a_migration_lock",
      "locks_a_sem",
      "locks_a_sem_holder",
      "locks_a_sem_waiter",
      "locks_a_waiter",
      "locks_b",
      "locks_b_migration",
      "locks_b_migration_lock",
      "locks_b_sem",
      "locks_b_sem_holder",
      "locks_b_sem_waiter",
      "locks_b_waiter",
    ]);
  });

  it("a table made by the first migration is upgraded with the waiter and semaphore tables, keeping its holds and counters", async () => {
    const database = new BetterSqlite3(join(dir, "upgrade.sqlite"));
    const db = new Kysely({ dialect: new SqliteDialect({ database }) });
    const migrator = new Migrator({
      db,
      provider: new LockTableMigrationProvider("distlock_locks", "sqlite"),
      migrationTableName: "distlock_locks_migration",
      migrationLockTableName: "distlock_locks_migration_lock",
    });
    expect((await migrator.migrateTo("0001_create_lock_table")).error).toBeUndefined();
    await sql`insert into distlock_locks (lock_key, owner_secret, holder, hold_count, fencing_token, expires_at) values ('old', 'gone', 'h', 1, 41, 0)`.execute(
      db,
    );
    await db.destroy();

    const locks = provider("upgrade.sqlite");
    const holder = await locks.acquire("old", { ttlMs: 5_000 });
    expect(holder.fencingToken).toBe(42n);
    const waiting = locks.acquire("old", { ttlMs: 5_000 });
    // The waiter has its place in the upgraded waiter table before the release.
    await expect.poll(async () => (await locks.inspect("old"))?.waiters).toBe(1);
    await holder.release();
    expect((await waiting).fencingToken).toBe(43n);
    const permit = await locks.semaphore("old", { permits: 2 }).acquire({ count: 2 });
    expect(permit.fencingToken).toBe(1n);
    await permit.release();
    const file = new BetterSqlite3(join(dir, "upgrade.sqlite"), { readonly: true });
    const applied = file.prepare("select name from distlock_locks_migration order by name").all() as { name: string }[];
    file.close();
    expect(applied.map((m) => m.name)).toEqual([
      "0001_create_lock_table",
      "0002_create_waiter_table",
      "0003_create_postgres_functions",
      "0004_sequential_waiter_tickets",
      "0005_create_semaphore_tables",
      LATEST_LOCK_TABLE_MIGRATION,
    ]);
  });

  it("works on a better-sqlite3 database the caller owns and leaves it open after close", async () => {
    const database = new BetterSqlite3(join(dir, "owned.sqlite"));
    const locks = new SqlLockProvider({ sqliteDatabase: database });
    expect((await locks.acquire("k")).holdCount).toBe(1);
    await locks.close();
    expect(database.open).toBe(true);
    expect(database.prepare("select count(*) as n from distlock_locks where owner_secret is not null").get()).toEqual({ n: 0 });
    database.close();
  });

  it("keys are compared exactly: case and trailing spaces make different keys", async () => {
    const locks = provider("exact.sqlite");
    for (const key of ["Key", "key", "key "]) expect(await locks.tryAcquire(key), key).not.toBeNull();
  });
});
