import { randomUUID } from "node:crypto";
import { LockError } from "@distlock/core";
import { startRedisSentinelSet, startTcpProxy } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { lockRecord } from "../test/lock-records.js";
import { providerPerTest } from "../test/provider-per-test.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

const set = await startRedisSentinelSet();
afterAll(() => set.close());

const provider = providerPerTest(set.url, { commandTimeoutMs: 2_000 });

const key = (label: string) => `sentinel:${label}:${randomUUID()}`;

describe("redis behind Sentinel", () => {
  it("a redis+sentinel URL locks on the master the Sentinel names", async () => {
    const k = key("master");
    const lock = await provider().acquire(k, { ttlMs: 30_000 });
    expect((await lockRecord(set.master, k))?.token).toBe(String(lock.fencingToken));
    await lock.release();
    expect(await lockRecord(set.master, k)).toMatchObject({ free: true });
  });

  it("a semaphore on a redis+sentinel URL keeps its permits on the master the Sentinel names", async () => {
    const name = key("semaphore");
    const semaphore = provider().semaphore(name, { permits: 2 });
    const permit = await semaphore.acquire({ ttlMs: 30_000, count: 2 });
    expect(await set.master.command("EXISTS", `{distlock:${name}}:sem:holders`)).toBe(1);
    expect(await provider().semaphore(name, { permits: 2 }).tryAcquire()).toBeNull();
    await permit.release();
    expect(await set.master.command("EXISTS", `{distlock:${name}}:sem:holders`)).toBe(0);
  });

  it("with waitForReplicas 1, a lock is on the replica when acquire returns, also when a release hands it over", async () => {
    const [holderSide, waiterSide] = [provider({ waitForReplicas: 1 }), provider({ waitForReplicas: 1 })];
    const k = key("wait");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    expect((await lockRecord(set.replica, k))?.token).toBe(String(held.fencingToken));
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => set.master.command("LLEN", `{distlock:${k}}:queue`)).toBe(1);
    await held.release();
    const handedOver = await waiting;
    // Claimed: the line mark no longer names the waiter it was handed to.
    expect(await lockRecord(set.replica, k)).toMatchObject({ token: String(handedOver.fencingToken), label: expect.stringMatching(/^\+ /) });
  });

  it("with waitForReplicas 1, a WAIT cut off by a dropped connection is not sent again on the next one: the acquire fails and frees the key", async () => {
    const { failure, waitsAfterDrop } = await acquireWhileWaitIsCut(provider({ waitForReplicas: 1, waitForReplicasTimeoutMs: 1_000 }));
    expect(LockError.is(failure, "BACKEND_UNAVAILABLE")).toBe(true);
    expect(waitsAfterDrop).toBe(0);
  });

  it("with waitForReplicas 1 on a caller's ioredis client, which re-sends the WAIT on its next connection, that WAIT's answer does not count", async () => {
    const client = new Redis({ sentinels: [{ host: "127.0.0.1", port: set.sentinel.port }], name: "distlock-master" });
    client.on("error", () => undefined);
    const locks = new RedisLockProvider({ client, waitForReplicas: 1, waitForReplicasTimeoutMs: 1_000 });
    try {
      const { failure, waitsAfterDrop } = await acquireWhileWaitIsCut(locks);
      expect(waitsAfterDrop).toBe(1);
      expect(LockError.is(failure, "BACKEND_UNAVAILABLE")).toBe(true);
      expect((failure as Error).message).toContain("re-established");
    } finally {
      await locks.close();
      client.disconnect();
    }
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
    expect((await lockRecord(set.replica, k))?.token).toBe(String(taken.fencingToken));
  });
});

/**
 * Acquires with waitForReplicas while the replica acknowledges nothing (its link through a proxy that drops
 * everything, which the master still counts as connected), and drops the provider's connection under the blocked
 * WAIT. A WAIT on a connection that wrote nothing would count that replica at once. Checks the key is freed again.
 */
async function acquireWhileWaitIsCut(locks: RedisLockProvider): Promise<{ failure: unknown; waitsAfterDrop: number }> {
  const k = key("wait-reconnect");
  await using link = await startTcpProxy(set.master.port);
  await set.replicate(set.replica, link.port);
  link.blackhole();
  try {
    const acquiring = locks.acquire(k, { ttlMs: 30_000 }).catch((error: unknown) => error);
    const blockedInWait = async () => /id=(\d+)[^\n]*cmd=wait/.exec(String(await set.master.command("CLIENT", "LIST")))?.[1];
    await expect.poll(blockedInWait, { timeout: 5_000 }).toBeDefined();
    const waitsBefore = await set.master.commandCalls("wait");
    await set.master.command("CLIENT", "KILL", "ID", String(await blockedInWait()));
    const failure = await acquiring;
    await expect.poll(async () => (await lockRecord(set.master, k))?.free).toBe(true);
    return { failure, waitsAfterDrop: (await set.master.commandCalls("wait")) - waitsBefore };
  } finally {
    await set.replicate(set.replica, set.master.port);
    await set.replicaInSync();
  }
}
