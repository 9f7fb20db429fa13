import { type Lock, LockError, type LockProvider } from "@distlock/core";
import { SqlLockProvider } from "@distlock/sql";
import { CamelCasePlugin, type Dialect, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addFenceColumn, addVersionColumn, fencedUpdate, fencedUpsert, optimisticUpdate, versionedUpdate } from "../src/sql/index.js";
import type { AnyDb } from "../src/sql/sql-dialect.js";
import { kyselyWithLog } from "./kysely-with-log.js";

/** One database to fence rows in: the kysely dialect to reach it, and the URL of its lock table. */
export interface SqlFenceDatabase {
  readonly dialect: Dialect;
  readonly lockUrl: string;
  /** Stops what `open` started, once `db` and the lock providers are closed. */
  stop(): Promise<void>;
}

/** The database under test, with a log of the statements sent through `db`, and two lock providers on it. */
interface SqlFenceTarget {
  readonly db: AnyDb;
  readonly locks: LockProvider;
  /** A second provider on the same backend: another process, as far as `locks` can tell. */
  readonly rivalLocks: LockProvider;
  readonly statements: string[];
  close(): Promise<void>;
}

async function openTarget(open: () => Promise<SqlFenceDatabase>): Promise<SqlFenceTarget> {
  const database = await open();
  const { db, statements } = kyselyWithLog(database.dialect);
  const locks = new SqlLockProvider({ url: database.lockUrl });
  const rivalLocks = new SqlLockProvider({ url: database.lockUrl });
  return {
    db,
    locks,
    rivalLocks,
    statements,
    close: async () => {
      await Promise.all([locks.close(), rivalLocks.close()]);
      await db.destroy();
      await database.stop();
    },
  };
}

interface Product {
  [column: string]: unknown;
  sku: string;
  price: number;
}

/** The fenced-write and optimistic-update behaviour every SQL dialect must show, against a real server. */
export function describeSqlFence(name: string, open: () => Promise<SqlFenceDatabase>): void {
  describe(`fenced SQL writes on ${name}`, () => {
    let target: SqlFenceTarget;
    let tables = 0;
    beforeAll(async () => {
      target = await openTarget(open);
    });
    afterAll(() => target?.close());

    async function productTable(): Promise<string> {
      const table = `product_${++tables}`;
      await target.db.schema
        .createTable(table)
        .addColumn("sku", "varchar(32)", (column) => column.primaryKey())
        .addColumn("price", "integer", (column) => column.notNull())
        .execute();
      await addFenceColumn(target.db, table);
      await addVersionColumn(target.db, table);
      await target.db.insertInto(table).values({ sku: "A-1", price: 100 }).execute();
      return table;
    }

    const rowOf = async (table: string) => {
      const row = await target.db.selectFrom(table).selectAll().where("sku", "=", "A-1").executeTakeFirstOrThrow();
      return { price: Number(row.price), fenceToken: row.fence_token === null ? null : BigInt(row.fence_token), version: Number(row.version) };
    };

    /**
     * A holds the key and loses it on the server without knowing (as a holder paused past its lease would: here an
     * operator in another process force-releases it), and B, in that other process, takes it.
     */
    async function supersededHolder(table: string): Promise<{ stale: Lock; current: Lock }> {
      const key = `fence:${name}:${table}`;
      const stale = await target.locks.acquire(key, { ttlMs: 30_000, autoRenew: false });
      expect(await target.rivalLocks.forceRelease(key)).toBe(true);
      const current = await target.rivalLocks.acquire(key, { ttlMs: 30_000 });
      expect(stale.signal.aborted).toBe(false);
      expect(current.fencingToken).toBeGreaterThan(stale.fencingToken as bigint);
      return { stale, current };
    }

    async function releaseBoth({ stale, current }: { stale: Lock; current: Lock }) {
      await current.release();
      await stale.release().catch((error: unknown) => expect(LockError.is(error, "LOCK_LOST")).toBe(true));
    }

    it("refuses the superseded holder's update and keeps the current holder's", async () => {
      const table = await productTable();
      const holders = await supersededHolder(table);
      expect(await fencedUpdate(target.db, holders.current, { table, where: { sku: "A-1" }, set: { price: 120 } })).toEqual({ updatedRows: 1n });
      const refused = await fencedUpdate(target.db, holders.stale, { table, where: { sku: "A-1" }, set: { price: 999 } }).catch((error: unknown) => error);
      expect(LockError.is(refused, "FENCED_OUT")).toBe(true);
      expect(refused).toMatchObject({ fencingToken: holders.stale.fencingToken, storedToken: holders.current.fencingToken });
      expect(await rowOf(table)).toEqual({ price: 120, fenceToken: holders.current.fencingToken, version: 0 });
      await releaseBoth(holders);
    });

    it("lets one holder write again with the same token, and a later holder after it", async () => {
      const table = await productTable();
      const first = await target.locks.acquire(`fence:${name}:${table}`);
      await fencedUpdate(target.db, first, { table, where: { sku: "A-1" }, set: { price: 101 } });
      await fencedUpdate(target.db, first, { table, where: { sku: "A-1" }, set: { price: 102 } });
      await first.release();
      const second = await target.locks.acquire(`fence:${name}:${table}`);
      await fencedUpdate(target.db, second, { table, where: { sku: "A-1" }, set: { price: 103 } });
      expect(await rowOf(table)).toEqual({ price: 103, fenceToken: second.fencingToken, version: 0 });
      expect(await fencedUpdate(target.db, second, { table, where: { sku: "none" }, set: { price: 1 } })).toEqual({ updatedRows: 0n });
      await second.release();
    });

    it("takes expressions as values and matches NULL, each statement shape compiled apart", async () => {
      const table = await productTable();
      await target.db.insertInto(table).values({ sku: "N-0", price: 5 }).execute();
      const lock = await target.locks.acquire(`fence:${name}:${table}`);
      await fencedUpdate(target.db, lock, { table, where: { sku: "A-1" }, set: { price: sql`price + 1` } });
      await fencedUpdate(target.db, lock, { table, where: { sku: "A-1" }, set: { price: sql`price + 1` } });
      await fencedUpdate(target.db, lock, { table, where: { sku: "N-0", fence_token: null }, set: { price: 6 } });
      const second = await fencedUpdate(target.db, lock, { table, where: { sku: "N-0", fence_token: null }, set: { price: 7 } });
      expect(second).toEqual({ updatedRows: 0n });
      await fencedUpdate(target.db.withPlugin(new CamelCasePlugin()), lock, { table, where: { sku: "N-0" }, set: { price: 8 } });
      expect((await rowOf(table)).price).toBe(102);
      const other = await target.db.selectFrom(table).select(["price", "fence_token"]).where("sku", "=", "N-0").executeTakeFirstOrThrow();
      expect([Number(other.price), BigInt(other.fence_token)]).toEqual([8, lock.fencingToken]);
      await lock.release();
    });

    it("upserts: inserts a new row, updates it for the current holder, refuses the superseded one", async () => {
      const table = await productTable();
      const holders = await supersededHolder(table);
      await fencedUpsert(target.db, holders.current, { table, key: { sku: "B-2" }, values: { price: 7 } });
      await fencedUpsert(target.db, holders.current, { table, key: { sku: "B-2" }, values: { price: 8 } });
      const refused = await fencedUpsert(target.db, holders.stale, { table, key: { sku: "B-2" }, values: { price: 999 } }).catch((error: unknown) => error);
      expect(LockError.is(refused, "FENCED_OUT")).toBe(true);
      const row = await target.db.selectFrom(table).selectAll().where("sku", "=", "B-2").executeTakeFirstOrThrow();
      expect([Number(row.price), BigInt(row.fence_token)]).toEqual([8, holders.current.fencingToken]);
      await releaseBoth(holders);
    });

    it("leaves nothing behind when the caller's transaction rolls back", async () => {
      const table = await productTable();
      const lock = await target.locks.acquire(`fence:${name}:${table}`);
      const rollback = new Error("rolled back by the caller");
      const outcome = await target.db
        .transaction()
        .execute(async (trx) => {
          await fencedUpdate(trx, lock, { table, where: { sku: "A-1" }, set: { price: 555 } });
          await fencedUpsert(trx, lock, { table, key: { sku: "C-3" }, values: { price: 3 } });
          await optimisticUpdate<Product>(trx, { table, where: { sku: "A-1" }, update: (row) => ({ price: row.price + 1 }) });
          throw rollback;
        })
        .catch((error: unknown) => error);
      expect(outcome).toBe(rollback);
      expect(await rowOf(table)).toEqual({ price: 100, fenceToken: null, version: 0 });
      expect(await target.db.selectFrom(table).select("sku").where("sku", "=", "C-3").execute()).toEqual([]);
      await lock.release();
    });

    it("retries an optimistic update that lost a race, and counts the conflict", async () => {
      const table = await productTable();
      let calls = 0;
      const result = await optimisticUpdate<Product>(target.db, {
        table,
        where: { sku: "A-1" },
        update: async (row) => {
          calls++;
          if (calls === 1) expect(await versionedUpdate(target.db, { table, where: { sku: "A-1" }, set: { price: 500 }, version: 0 })).toBe(true);
          return { price: Number(row.price) + 1 };
        },
      });
      expect([result.attempts, result.conflicts, calls]).toEqual([2, 1, 2]);
      expect(result.value).toMatchObject({ sku: "A-1", price: 501 });
      expect(await rowOf(table)).toEqual({ price: 501, fenceToken: null, version: 2 });
    });

    it("gives up with VersionConflictError after maxAttempts, having written only the rival's change", async () => {
      const table = await productTable();
      const failure = await optimisticUpdate<Product>(
        target.db,
        {
          table,
          where: { sku: "A-1" },
          update: async (row) => {
            const version = (await rowOf(table)).version;
            await versionedUpdate(target.db, { table, where: { sku: "A-1" }, set: { price: Number(row.price) + 10 }, version });
            return { price: -1 };
          },
        },
        { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      ).catch((error: unknown) => error);
      expect(LockError.is(failure, "VERSION_CONFLICT")).toBe(true);
      expect(failure).toMatchObject({ attempts: 3 });
      expect(await rowOf(table)).toEqual({ price: 130, fenceToken: null, version: 3 });
    });

    it("refuses bad input with an error naming the field, before any write", async () => {
      const table = await productTable();
      const lock = await target.locks.acquire(`fence:${name}:${table}`);
      const unfenced = { key: lock.key, fencingToken: null, signal: lock.signal };
      const sent = target.statements.length;
      const field = (promise: Promise<unknown>) =>
        promise.then(
          () => "resolved",
          (error: { code?: string; field?: string }) => `${error.code} ${error.field}`,
        );
      expect(await field(fencedUpdate(target.db, unfenced, { table, where: { sku: "A-1" }, set: { price: 1 } }))).toBe("INVALID_ARGUMENT lock.fencingToken");
      expect(await field(fencedUpdate(target.db, lock, { table: "product; drop table x", where: { sku: "A-1" }, set: { price: 1 } }))).toBe(
        "INVALID_ARGUMENT write.table",
      );
      expect(await field(fencedUpdate(target.db, lock, { table, where: {}, set: { price: 1 } }))).toBe("INVALID_ARGUMENT write.where");
      expect(await field(fencedUpdate(target.db, lock, { table, where: { sku: "A-1" }, set: { fence_token: 1 } }))).toBe("INVALID_ARGUMENT write.set");
      expect(await field(versionedUpdate(target.db, { table, where: { sku: "A-1" }, set: { price: 1 }, version: 1.5 }))).toBe("INVALID_ARGUMENT write.version");
      expect(await field(optimisticUpdate(target.db, { table, where: { sku: "A-1" }, update: () => ({ price: 1 }) }, { maxAttempts: 0 }))).toBe(
        "INVALID_ARGUMENT options.maxAttempts",
      );
      expect(target.statements.length).toBe(sent);
      expect(await field(fencedUpdate(target.db, lock, { table, where: { sku: "A-1" }, set: { price: 1 }, column: "no_such_column" }))).toBe(
        "INVALID_ARGUMENT write.column",
      );
      expect(await field(optimisticUpdate(target.db, { table, where: { sku: "A-1" }, update: () => ({ price: 1 }), column: "price_version" }))).toBe(
        "INVALID_ARGUMENT write.column",
      );
      expect(await rowOf(table)).toEqual({ price: 100, fenceToken: null, version: 0 });
      await lock.release();
    });

    it("refuses a lock already known to be lost, before any statement", async () => {
      const table = await productTable();
      const lock = await target.locks.acquire(`fence:${name}:${table}`, { ttlMs: 30_000 });
      await target.locks.forceRelease(lock.key);
      expect(lock.signal.aborted).toBe(true);
      const sent = target.statements.length;
      const refused = await fencedUpdate(target.db, lock, { table, where: { sku: "A-1" }, set: { price: 1 } }).catch((error: unknown) => error);
      expect(LockError.is(refused, "LOCK_LOST")).toBe(true);
      expect(target.statements.length).toBe(sent);
    });
  });
}
