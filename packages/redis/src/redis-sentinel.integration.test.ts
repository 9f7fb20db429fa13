import { randomUUID } from "node:crypto";
import { startRedisSentinelSet } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { providerPerTest } from "../test/provider-per-test.js";
import type { RedisLockProvider } from "./redis-lock-provider.js";
import { parseStoredHold } from "./scripts/stored-hold.js";

const set = await startRedisSentinelSet();
afterAll(() => set.close());

const provider = providerPerTest(set.url, { commandTimeoutMs: 2_000 });

const key = (label: string) => `sentinel:${label}:${randomUUID()}`;
const lockKey = (k: string) => `{distlock:${k}}:lock`;
/** The hold of `k` as `server` stores it. */
const storedLock = async (server: { command(...args: string[]): Promise<unknown> }, k: string) =>
  parseStoredHold(String(await server.command("GET", lockKey(k))));

describe("redis behind Sentinel", () => {
  it("a redis+sentinel URL locks on the master the Sentinel names", async () => {
    const k = key("master");
    const lock = await provider().acquire(k, { ttlMs: 30_000 });
    expect((await storedLock(set.master, k))?.token).toBe(String(lock.fencingToken));
    await lock.release();
    expect(await set.master.command("EXISTS", lockKey(k))).toBe(0);
  });

  it("a semaphore on a redis+sentinel URL keeps its permits on the master the Sentinel names", async () => {
    const name = key("semaphore");
    const semaphore = provider().semaphore(name, { permits: 2 });
    const permit = await semaphore.acquire({ ttlMs: 30_000, count: 2 });
    expect(await set.master.command("ZCARD", `{distlock:${name}}:sem:holders`)).toBe(1);
    expect(await provider().semaphore(name, { permits: 2 }).tryAcquire()).toBeNull();
    await permit.release();
    expect(await set.master.command("EXISTS", `{distlock:${name}}:sem:holders`)).toBe(0);
  });

  it("with waitForReplicas 1, a lock is on the replica when acquire returns, also when a release hands it over", async () => {
    const [holderSide, waiterSide] = [provider({ waitForReplicas: 1 }), provider({ waitForReplicas: 1 })];
    const k = key("wait");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    expect((await storedLock(set.replica, k))?.token).toBe(String(held.fencingToken));
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => set.master.command("LLEN", `{distlock:${k}}:queue`)).toBe(1);
    await held.release();
    const handedOver = await waiting;
    // Claimed: the line mark no longer names the waiter it was handed to.
    expect(await storedLock(set.replica, k)).toMatchObject({ token: String(handedOver.fencingToken), label: expect.stringMatching(/^\+ /) });
  });

  it("after a Sentinel failover, the same provider locks on the promoted replica with a higher fencing token", async () => {
    const locks = provider();
    const k = key("failover");
    const before = await locks.acquire(k, { ttlMs: 30_000 });
    await before.release();
    await set.replicaInSync();
    await set.sentinel.command("SENTINEL", "FAILOVER", "distlock-master");
    await expect.poll(() => set.masterPort(), { timeout: 20_000, interval: 100 }).toBe(set.replica.port);
    // Until the Sentinel has demoted the old master it still takes writes (Redis replication is asynchronous).
    const role = async () => /role:(\w+)/.exec(String(await set.master.command("INFO", "replication")))?.[1];
    await expect.poll(role, { timeout: 20_000, interval: 100 }).toBe("slave");
    let after: Awaited<ReturnType<RedisLockProvider["tryAcquire"]>> = null;
    await expect
      .poll(
        async () => {
          after = await locks.tryAcquire(k, { ttlMs: 30_000 }).catch(() => null);
          return after !== null;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    const taken = after as unknown as { fencingToken: bigint };
    expect(taken.fencingToken).toBeGreaterThan(before.fencingToken as bigint);
    expect((await storedLock(set.replica, k))?.token).toBe(String(taken.fencingToken));
  });
});
