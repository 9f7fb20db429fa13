import { randomUUID } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type InvalidConfigError, LockErrorCode } from "@distlock/core";
import { createDynamoDbLockTable, DynamoDbLockProvider } from "@distlock/dynamodb";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startDynaliteLockTable } from "../test/dynalite-lock-table.js";
import { failure } from "../test/lock-outcomes.js";

const { server, url } = await startDynaliteLockTable();
afterAll(() => server.close());

describe("dynamodb table", () => {
  it("a missing table is INVALID_CONFIG naming it, and createDynamoDbLockTable creates it once", async () => {
    const table = `missing-${randomUUID()}`;
    const missing = new DynamoDbLockProvider({ url: server.url(table) });
    const error = (await failure(missing.tryAcquire("k"))) as InvalidConfigError;
    expect(error.code).toBe(LockErrorCode.InvalidConfig);
    expect(error.field).toBe("url.path");
    expect(error.message).toContain(table);
    expect(await createDynamoDbLockTable({ url: server.url(table) })).toBe(true);
    expect(await createDynamoDbLockTable({ url: server.url(table) })).toBe(false);
    const lock = await missing.tryAcquire("k");
    expect(lock?.fencingToken).toBe(1n);
    await missing.close();
  });

  it("the fencing counter survives release and force-release, and a force-released holder learns it lost the key", async () => {
    const [provider, admin] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url })];
    const key = `counter-${randomUUID()}`;
    const first = await provider.acquire(key);
    await first.release();
    const second = await provider.acquire(key);
    expect(await admin.forceRelease(key)).toBe(true);
    expect(await admin.forceRelease(key)).toBe(false);
    expect((await failure(second.release())).code).toBe(LockErrorCode.LockLost);
    const third = await admin.acquire(key);
    expect([first.fencingToken, second.fencingToken, third.fencingToken]).toEqual([1n, 2n, 3n]);
    await Promise.all([provider.close(), admin.close()]);
  });

  it("a key freed and taken again by one process is put whole only while nobody changed it: after another's take, or with a waiter in line, it goes the usual way", async () => {
    const [provider, other] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url })];
    const key = `retake-${randomUUID()}`;
    const tokens: Array<bigint | null> = [];
    const takeAndRelease = async (by: DynamoDbLockProvider) => {
      const lock = await by.acquire(key);
      tokens.push(lock.fencingToken);
      await lock.release();
    };
    await takeAndRelease(provider);
    await takeAndRelease(provider);
    await takeAndRelease(other);
    await takeAndRelease(provider);
    // A waiter joins while the key is held, and is served before the holder takes the key back.
    const held = await provider.acquire(key);
    tokens.push(held.fencingToken);
    const waiting = other.acquire(key, { waitMs: 10_000 });
    await vi.waitFor(async () => expect((await other.inspect(key))?.waiters).toBe(1));
    await held.release();
    expect(await provider.tryAcquire(key)).toBeNull();
    const served = await waiting;
    tokens.push(served.fencingToken);
    await served.release();
    await takeAndRelease(provider);
    expect(tokens).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    await Promise.all([provider.close(), other.close()]);
  });

  it("keys of two prefixes sharing one table do not meet", async () => {
    const [a, b] = [new DynamoDbLockProvider({ url, prefix: "app-a:" }), new DynamoDbLockProvider({ url, prefix: "app-b:" })];
    const key = `shared-${randomUUID()}`;
    expect(await a.tryAcquire(key)).not.toBeNull();
    expect(await b.tryAcquire(key)).not.toBeNull();
    expect((await b.list(key)).map((state) => state.key)).toEqual([key]);
    await Promise.all([a.close(), b.close()]);
  });

  it("a client of the caller's is used for its endpoint and left open by close", async () => {
    const client = new DynamoDBClient({ region: "us-east-1", endpoint: server.endpoint, maxAttempts: 1 });
    const provider = new DynamoDbLockProvider({ url: "dynamodb://eu-west-1/distlock-locks", client });
    const lock = await provider.acquire(`own-client-${randomUUID()}`);
    await provider.close();
    expect(lock.signal.aborted).toBe(true);
    const again = new DynamoDbLockProvider({ url: "dynamodb://eu-west-1/distlock-locks", client });
    expect(await again.inspect(lock.key)).toBeNull();
    await again.close();
    client.destroy();
  });

  it("a server that stops answering fails each call with BACKEND_UNAVAILABLE after commandTimeoutMs", async () => {
    const provider = new DynamoDbLockProvider({ url, commandTimeoutMs: 300 });
    await provider.inspect("warm-up");
    server.pause();
    try {
      const started = performance.now();
      const error = await failure(provider.tryAcquire(`paused-${randomUUID()}`));
      expect(error.code).toBe(LockErrorCode.BackendUnavailable);
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      server.resume();
    }
    expect(await provider.inspect("warm-up")).toBeNull();
    await provider.close();
  });
});
