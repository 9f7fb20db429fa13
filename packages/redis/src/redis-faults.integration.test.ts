import { randomUUID } from "node:crypto";
import { abortByDeadline, aborted } from "@distlock/conformance";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { startRedis } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RedisLockProvider } from "./redis-lock-provider.js";

const TTL_MS = 1_000;
/** Timer and event-loop slack on top of the conservative deadline. */
const DEADLINE_SLACK_MS = 100;

const server = await startRedis();
afterAll(() => server.close());

const providers: RedisLockProvider[] = [];
afterEach(async () => {
  await server.start();
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(commandTimeoutMs = 500): RedisLockProvider {
  const created = new RedisLockProvider({ url: server.url, commandTimeoutMs, connectTimeoutMs: 500 });
  providers.push(created);
  return created;
}

describe("redis-server faults", () => {
  it("a lock held while redis-server is killed aborts its signal with LOCK_LOST no later than its conservative deadline", async () => {
    const lock = await provider().acquire(`fault:${randomUUID()}`, { ttlMs: TTL_MS });
    await server.kill();
    expect(await abortByDeadline(lock.signal, lock.validUntil, TTL_MS * 2)).toBe("in time");
    expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
  });

  it("after redis-server restarts on the same port, the same provider acquires, inspects and releases again", async () => {
    const locks = provider(2_000);
    const key = `restart:${randomUUID()}`;
    const before = await locks.acquire(key, { ttlMs: TTL_MS });
    await server.kill();
    await aborted(before.signal);
    await server.start();
    const after = await locks.acquire(key, { ttlMs: TTL_MS, waitMs: 5_000 });
    expect(after.holdCount).toBe(1);
    expect(after.fencingToken as bigint).toBeGreaterThan(before.fencingToken as bigint);
    expect((await locks.inspect(key))?.holder).toBe(after.holder);
    await after.release();
    expect(await locks.inspect(key)).toBeNull();
  });

  it("a call while redis-server is down fails with BACKEND_UNAVAILABLE within the command timeout instead of hanging", async () => {
    const locks = provider();
    await locks.inspect(`warm-up:${randomUUID()}`);
    await server.kill();
    const started = monotonicNow();
    const error = await locks.tryAcquire(`down:${randomUUID()}`).catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect(monotonicNow() - started).toBeLessThan(500 + DEADLINE_SLACK_MS);
  });

  it("a waiter whose holder's release was published while the subscriber was reconnecting still gets the key promptly", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const key = `reconnect:${randomUUID()}`;
    const holder = await holderSide.acquire(key, { ttlMs: 30_000 });
    const waiting = waiterSide.acquire(key, { ttlMs: TTL_MS, waitMs: 10_000 });
    await expect
      .poll(async () => (await server.command("PUBSUB", "NUMSUB", `{distlock:${key}}:released`)) as unknown[])
      .toEqual([`{distlock:${key}}:released`, 1]);
    await server.command("CLIENT", "KILL", "TYPE", "pubsub");
    await holder.release();
    const releasedAt = monotonicNow();
    const lock = await waiting;
    expect(monotonicNow() - releasedAt).toBeLessThan(2_000);
    await lock.release();
  });
});
