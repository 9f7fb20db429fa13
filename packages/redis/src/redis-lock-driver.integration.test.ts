import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow, newOwnerSecret } from "@distlock/core/internal";
import { startRedis } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { lockRecord, recordName } from "../test/lock-records.js";
import { createRedisLockDriver } from "./create-redis-lock-driver.js";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { resolveRedisLockOptions } from "./options/resolve-redis-lock-options.js";
import type { RedisLockDriver } from "./redis-lock-driver.js";
import { RedisLockProvider } from "./redis-lock-provider.js";
import { FREE_RECORD_HEAD, type LockRecord } from "./scripts/lock-record.js";

const server = await startRedis();
afterAll(() => server.close());

const closables: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(closables.splice(0).map((c) => c.close()));
});

function driver(options: Partial<RedisLockProviderOptions> = {}): RedisLockDriver {
  const created = createRedisLockDriver(resolveRedisLockOptions({ url: server.url, ...options }));
  closables.push(created);
  return created;
}

function provider(options: Partial<RedisLockProviderOptions> = {}): RedisLockProvider {
  const created = new RedisLockProvider({ url: server.url, ...options });
  closables.push(created);
  return created;
}

const calls = (command: string) => server.commandCalls(command);

const key = (label: string) => `driver:${label}:${randomUUID()}`;

describe("redis lock driver", () => {
  it("a free key's token is max(last token + 1, server clock µs): last token ahead of the clock, behind it, or shorter but greater as text", async () => {
    const locks = provider();
    const fenced = async (last: string | undefined) => {
      const k = key("token-rule");
      if (last !== undefined) await server.command("SET", recordName(k), `${FREE_RECORD_HEAD}${last}`);
      const [seconds, micros] = (await server.command("TIME")) as [string, string];
      const lock = await locks.acquire(k, { ttlMs: 30_000 });
      await lock.release();
      return {
        token: lock.fencingToken as bigint,
        clock: BigInt(seconds) * 1_000_000n + BigInt(micros),
        counter: ((await lockRecord(server, k)) as LockRecord).token,
      };
    };
    // Tokens are exact below 2^53 (9007199254740992); the clock in µs is about 1.8e15.
    const ahead = await fenced("9000000000000000");
    expect(ahead.token).toBe(9_000_000_000_000_001n);
    expect(ahead.counter).toBe("9000000000000001");
    for (const behind of [await fenced("1"), await fenced("999999999999999"), await fenced(undefined)]) {
      expect(behind.token).toBeGreaterThanOrEqual(behind.clock);
      expect(behind.counter).toBe(String(behind.token));
    }
  });

  it("renews 250 holds with one script call per renewBatchSize holds", async () => {
    const locks = driver({ renewBatchSize: 100 });
    const renewals = Array.from({ length: 250 }, () => ({ key: key("batch"), ownerSecret: newOwnerSecret(), ttlMs: 60_000 }));
    for (const r of renewals) await locks.tryAcquire({ ...r, holder: "test", ttlMs: 1_000 });
    await locks.renew(renewals.slice(0, 1));
    const before = (await calls("evalsha")) + (await calls("eval"));
    const renewed = await locks.renew([...renewals, { key: key("never-held"), ownerSecret: newOwnerSecret(), ttlMs: 60_000 }]);
    expect((await calls("evalsha")) + (await calls("eval")) - before).toBe(3);
    expect(renewed).toEqual([...renewals.map(() => true), false]);
    expect((await locks.inspect((renewals[0] as { key: string }).key))?.ttlRemainingMs).toBeGreaterThan(30_000);
  });

  it("a renewal costs the server a read and one SETRANGE of the deadline per hold", async () => {
    const locks = driver();
    const renewals = Array.from({ length: 20 }, () => ({ key: key("deadline"), ownerSecret: newOwnerSecret(), ttlMs: 60_000 }));
    for (const renewal of renewals) await locks.tryAcquire({ ...renewal, holder: "test", ttlMs: 1_000 });
    const [get, setrange] = [await calls("get"), await calls("setrange")];
    expect(await locks.renew(renewals)).toEqual(renewals.map(() => true));
    expect([(await calls("get")) - get, (await calls("setrange")) - setrange]).toEqual([20, 20]);
    expect((await locks.inspect((renewals[0] as { key: string }).key))?.ttlRemainingMs).toBeGreaterThan(30_000);
  });

  it("a renewal never shortens a longer lease", async () => {
    const locks = driver();
    const request = { key: key("no-shorten"), ownerSecret: newOwnerSecret(), holder: "test", ttlMs: 60_000 };
    await locks.tryAcquire(request);
    expect(await locks.renew([{ ...request, ttlMs: 1_000 }])).toEqual([true]);
    expect((await locks.inspect(request.key))?.ttlRemainingMs).toBeGreaterThan(50_000);
  });

  it("waiters on many keys share one subscriber connection, which stays after they leave only until unsubscribeDelayMs", async () => {
    const [holders, waiters] = [provider(), provider({ unsubscribeDelayMs: 200 })];
    const keys = Array.from({ length: 12 }, () => key("shared-subscriber"));
    const held = await Promise.all(keys.map((k) => holders.acquire(k, { ttlMs: 30_000 })));
    const pubsubClientsBefore = await pubsubClients();
    const waiting = keys.map((k) => waiters.acquire(k, { ttlMs: 30_000 }));
    await expect.poll(async () => Number(((await server.command("PUBSUB", "NUMSUB", `{distlock:${keys[11]}}:released`)) as unknown[])[1])).toBe(1);
    expect((await pubsubClients()) - pubsubClientsBefore).toBe(1);
    await Promise.all(held.map((lock) => lock.release()));
    await Promise.all((await Promise.all(waiting)).map((lock) => lock.release()));
    await expect
      .poll(
        async () =>
          Number(await server.command("PUBSUB", "NUMPAT")) + ((await server.command("PUBSUB", "CHANNELS", "{distlock:driver:shared*")) as unknown[]).length,
      )
      .toBe(0);
  });

  it("a waiter does not poll: it sends no acquire attempts while the holder keeps the key, and wins promptly on release", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("no-polling");
    const holder = await holderSide.acquire(k, { ttlMs: 30_000 });
    const attemptsBefore = await calls("evalsha");
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => server.command("LLEN", `{distlock:${k}}:queue`)).toBe(1);
    // Time itself: half a second in line, in which a polling waiter would have retried many times over.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await calls("evalsha")) - attemptsBefore).toBeLessThanOrEqual(2);
    const releasedAt = monotonicNow();
    await holder.release();
    await waiting;
    expect(monotonicNow() - releasedAt).toBeLessThan(100);
  });

  it("scripts still run after the server forgot them (SCRIPT FLUSH)", async () => {
    const locks = provider();
    const first = await locks.acquire(key("noscript"));
    await server.command("SCRIPT", "FLUSH");
    await first.release();
    expect(await locks.tryAcquire(key("noscript"))).not.toBeNull();
  });

  it("fencing tokens keep rising after the server lost its data", async () => {
    const locks = provider();
    const k = key("data-loss");
    const before = await locks.acquire(k);
    await server.command("FLUSHALL");
    const after = await locks.acquire(k);
    expect(after.fencingToken as bigint).toBeGreaterThan(before.fencingToken as bigint);
  });

  it("with waitForReplicas, an acquisition no replica acknowledged fails with BACKEND_UNAVAILABLE and leaves the key free", async () => {
    const locks = provider({ waitForReplicas: 1, waitForReplicasTimeoutMs: 50 });
    const k = key("wait-replicas");
    const error = await locks.acquire(k).catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect((error as Error).message).toContain("0 of 1 replicas");
    expect(await locks.inspect(k)).toBeNull();
  });
});

async function pubsubClients(): Promise<number> {
  const list = String(await server.command("CLIENT", "LIST"));
  return list.split("\n").filter((line) => / flags=\S*P/.test(line) || / sub=[1-9]/.test(line)).length;
}
