import type { MysqlPoolConnection } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { BoundedMysqlPool } from "./bounded-mysql-pool.js";
import type { Mysql2Pool, Mysql2PoolConnection } from "./mysql-client-api.js";

type Checkout = (error: unknown, connection: Mysql2PoolConnection) => void;

/** A pool whose checkouts wait until the test answers them. */
function heldPool() {
  const waiting: Checkout[] = [];
  const pool: Mysql2Pool = { getConnection: (callback) => waiting.push(callback), end: (callback) => callback(undefined) };
  return { pool, answer: (error: unknown, connection?: Mysql2PoolConnection) => waiting.shift()?.(error, connection as Mysql2PoolConnection) };
}

function fakeConnection(): Mysql2PoolConnection {
  return { query: vi.fn(), release: vi.fn(), destroy: vi.fn() };
}

function checkOut(pool: BoundedMysqlPool): Promise<{ error: unknown; connection: MysqlPoolConnection | undefined }> {
  return new Promise((resolve) => pool.getConnection((error, connection) => resolve({ error, connection })));
}

describe("BoundedMysqlPool.getConnection", () => {
  it("hands over a connection that comes in time; releasing it returns it to the pool", async () => {
    const { pool, answer } = heldPool();
    const bounded = new BoundedMysqlPool(pool, { acquireTimeoutMs: 60_000, queryTimeoutMs: 1_000, ends: true });
    const checkout = checkOut(bounded);
    const connection = fakeConnection();
    answer(null, connection);
    const { error, connection: wrapped } = await checkout;
    expect(error).toBeNull();
    wrapped?.release();
    expect(connection.release).toHaveBeenCalledTimes(1);
  });

  it("passes the pool's failure through unchanged", async () => {
    const { pool, answer } = heldPool();
    const bounded = new BoundedMysqlPool(pool, { acquireTimeoutMs: 60_000, queryTimeoutMs: 1_000, ends: true });
    const checkout = checkOut(bounded);
    const failure = new Error("connect ECONNREFUSED");
    answer(failure);
    expect((await checkout).error).toBe(failure);
  });

  it("gives up after acquireTimeoutMs, and a connection that comes later goes straight back", async () => {
    const { pool, answer } = heldPool();
    const bounded = new BoundedMysqlPool(pool, { acquireTimeoutMs: 20, queryTimeoutMs: 1_000, ends: true });
    const { error, connection } = await checkOut(bounded);
    expect(String(error)).toContain("no pooled MySQL connection became free within 20 ms");
    expect(connection).toBeUndefined();
    const late = fakeConnection();
    answer(null, late);
    await vi.waitFor(() => expect(late.release).toHaveBeenCalledTimes(1));
  });
});
