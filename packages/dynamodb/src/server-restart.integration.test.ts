import { randomUUID } from "node:crypto";
import { LockErrorCode, LockLostError } from "@distlock/core";
import { DynamoDbLockProvider } from "@distlock/dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { startDynaliteLockTable } from "../test/dynalite-lock-table.js";
import { aborted, failure } from "../test/lock-outcomes.js";

// dynalite with its tables in LevelDB: a kill and a start keep them, as a DynamoDB outage keeps the table.
const { server, url } = await startDynaliteLockTable("distlock-locks", { persistent: true });
afterAll(() => server.close());

describe("a dynalite restart", () => {
  it("a hold outlives a restart shorter than its lease: calls fail with BACKEND_UNAVAILABLE while the server is down, then the holder still holds and the fencing counter goes on", async () => {
    const [holder, other] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url })];
    const key = `outlives-${randomUUID()}`;
    const lock = await holder.acquire(key, { ttlMs: 20_000 });
    await server.kill();
    try {
      expect((await failure(other.tryAcquire(key))).code).toBe(LockErrorCode.BackendUnavailable);
      expect((await failure(lock.renew())).code).toBe(LockErrorCode.BackendUnavailable);
    } finally {
      await server.start();
    }
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire(key)).toBeNull();
    expect(await other.inspect(key)).toMatchObject({ holder: lock.holder, holdCount: 1, fencingToken: lock.fencingToken });
    await lock.renew();
    await lock.release();
    const next = await other.acquire(key);
    expect(next.fencingToken).toBe((lock.fencingToken as bigint) + 1n);
    await Promise.all([holder.close(), other.close()]);
  });

  it("a restart that outlasts the lease: the holder's signal aborts with LockLostError while the server is down, a waiter takes the key after the lease with the next token, and the old holder's release is LOCK_LOST", async () => {
    const [holder, waiter] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url })];
    const key = `outlasts-${randomUUID()}`;
    const lock = await holder.acquire(key, { ttlMs: 600 });
    await server.kill();
    try {
      await aborted(lock.signal);
      expect(lock.signal.reason).toBeInstanceOf(LockLostError);
    } finally {
      await server.start();
    }
    // The item kept the hold through the restart: the waiter times its lease from its own first sighting.
    const firstSight = performance.now();
    expect(await waiter.tryAcquire(key)).toBeNull();
    const next = await waiter.acquire(key, { waitMs: 5_000 });
    expect(performance.now() - firstSight).toBeGreaterThanOrEqual(600);
    expect(next.fencingToken).toBe((lock.fencingToken as bigint) + 1n);
    expect((await failure(lock.release())).code).toBe(LockErrorCode.LockLost);
    await Promise.all([holder.close(), waiter.close()]);
  });
});
