import { randomUUID } from "node:crypto";
import { runAsLockOwner } from "@distlock/core";
import { startRedis, startRedisCluster } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { providerPerTest } from "../../test/provider-per-test.js";
import { scriptCalls } from "../../test/script-calls.js";
import { keySlot } from "../keys/key-slot.js";

const server = await startRedis();
const cluster = await startRedisCluster({ masters: 3 });
afterAll(() => Promise.all([server.close(), cluster.close()]));

const provider = providerPerTest(server.url);
const clusterProvider = providerPerTest(cluster.url);
const TTL = { ttlMs: 30_000 };
const keySet = (label: string, count: number) => {
  const base = `${label}:${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => `${base}:${i}`);
};

describe("multi-key sets on one redis-server", () => {
  it("takes a set with one script and releases it with one, each key with its own token", async () => {
    const locks = provider();
    const keys = keySet("one-script", 8);
    await (await locks.acquireAll(keys.slice(0, 2), TTL)).release();
    const before = await scriptCalls(server);
    const set = await locks.acquireAll(keys, TTL);
    expect((await scriptCalls(server)) - before).toBe(1);
    for (const lock of set.locks) expect((await locks.inspect(lock.key))?.fencingToken).toBe(lock.fencingToken);
    const beforeRelease = await scriptCalls(server);
    await set.release();
    expect((await scriptCalls(server)) - beforeRelease).toBe(1);
    for (const key of keys) expect(await locks.inspect(key)).toBeNull();
  });

  it("re-enters the keys the owner holds within the same script", async () => {
    const locks = provider();
    const keys = keySet("reenter", 3);
    await runAsLockOwner(async () => {
      const held = await locks.acquire(keys[1] as string, TTL);
      const before = await scriptCalls(server);
      const set = await locks.acquireAll(keys, TTL);
      expect((await scriptCalls(server)) - before).toBe(1);
      expect(set.locks.map((lock) => lock.holdCount)).toEqual([1, 2, 1]);
      expect(set.fencingTokens.get(keys[1] as string)).toBe(held.fencingToken);
      await set.release();
      expect((await locks.inspect(keys[1] as string))?.holdCount).toBe(1);
      await held.release();
    });
  });

  it("never overtakes a line: a free key with a live waiter goes to that waiter, and the set takes nothing", async () => {
    const caller = provider();
    const keys = keySet("line", 3);
    const lined = keys[1] as string;
    // A waiter in another process, queued on a key whose holder just let go: its entry as the acquire script writes it.
    const [seconds] = (await server.command("TIME")) as [string, string];
    const entry = `${Number(seconds) * 1000 + 60_000} 30000 6 secretwaiting-holder`;
    await server.command("HSET", `{distlock:${lined}}:waiters`, "w1", entry);
    await server.command("RPUSH", `{distlock:${lined}}:queue`, "w1");
    expect(await caller.tryAcquireAll(keys, TTL)).toBeNull();
    expect((await caller.inspect(lined))?.holder).toBe("waiting-holder");
    expect(await caller.inspect(keys[0] as string)).toBeNull();
    expect(await caller.inspect(keys[2] as string)).toBeNull();
  });
});

describe("multi-key sets on a Redis Cluster", () => {
  /** Keys under `label`, each in a slot of its own, in byte order. */
  const spreadKeys = (label: string, count: number) => {
    const base = `${label}:${randomUUID()}`;
    const keys: string[] = [];
    const slots = new Set<number>();
    for (let i = 0; keys.length < count; i++) {
      const key = `${base}:${i}`;
      const slot = keySlot(`{distlock:${key}}`);
      if (!slots.has(slot)) {
        slots.add(slot);
        keys.push(key);
      }
    }
    return keys.sort();
  };

  it("takes keys of several slots one slot after another, and gives back the earlier slots when a later one refuses", async () => {
    const [caller, other] = [clusterProvider(), clusterProvider()];
    const keys = spreadKeys("slots", 4);
    const blocker = await other.acquire(keys[3] as string, TTL);
    expect(await caller.tryAcquireAll(keys, TTL)).toBeNull();
    for (const key of keys.slice(0, 3)) expect(await caller.inspect(key)).toBeNull();
    await blocker.release();
    const set = await caller.acquireAll(keys, TTL);
    expect(new Set(set.locks.map((lock) => lock.fencingToken)).size).toBe(4);
    await set.release();
    for (const key of keys) expect(await caller.inspect(key)).toBeNull();
  });

  it("keys that start with one {hash tag} share a slot, so their set is one script", async () => {
    const tag = `{${randomUUID()}}`;
    const keys = [`${tag}a`, `${tag}b`, `${tag}c`];
    expect(new Set(keys.map((key) => keySlot(`{distlock:${key}}`))).size).toBe(1);
    const set = await clusterProvider().acquireAll(keys, TTL);
    expect(set.locks).toHaveLength(3);
    await set.release();
  });
});
