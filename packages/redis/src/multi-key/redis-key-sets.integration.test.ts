import { randomUUID } from "node:crypto";
import { runAsLockOwner } from "@distlock/core";
import { startRedis, startRedisCluster } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { providerPerTest } from "../../test/provider-per-test.js";
import { scriptCalls } from "../../test/script-calls.js";
import { keySlot } from "../keys/key-slot.js";
import { TOKEN_BLOCK } from "../scripts/lua-functions.js";

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

describe("set passes on one redis-server", () => {
  /** `caller`'s set of `keys` after waiting for `other`'s hold of the first key, with `other` then queued for the set. */
  async function contended(caller: ReturnType<typeof provider>, other: ReturnType<typeof provider>, keys: string[]) {
    const blocker = await other.acquire(keys[0] as string, TTL);
    const waiting = caller.acquireAll(keys, TTL);
    await expect.poll(async () => (await other.inspect(keys[0] as string))?.waiters).toBe(1);
    await blocker.release();
    const set = await waiting;
    const queued = other.acquireAll(keys, TTL);
    await expect.poll(async () => (await other.inspect(keys[0] as string))?.waiters).toBe(1);
    return { set, queued };
  }

  it("passes a contended set to this provider's next acquire of it, ahead of the line: every key a new owner and a higher token", async () => {
    const [caller, other] = [provider(), provider()];
    const keys = keySet("pass", 4);
    const { set: first, queued } = await contended(caller, other, keys);
    await first.release();
    // Released to the server, the set would have gone to the waiter queued for it first.
    const second = await caller.acquireAll(keys, TTL);
    expect((await caller.inspect(keys[0] as string))?.waiters).toBe(1);
    for (const key of keys) {
      expect(second.fencingTokens.get(key) as bigint).toBeGreaterThan(first.fencingTokens.get(key) as bigint);
      // The stored hold shows the top of the tokens the pass reserved for the passes after it.
      expect((await caller.inspect(key))?.fencingToken).toBe((second.fencingTokens.get(key) as bigint) + BigInt(TOKEN_BLOCK));
    }
    expect(await other.tryAcquireAll(keys, TTL)).toBeNull();
    await second.release();
    // Not taken again this turn: the set goes back to the server, whose line hands it to the queued caller.
    const theirs = await queued;
    for (const key of keys) expect(theirs.fencingTokens.get(key) as bigint).toBeGreaterThan(second.fencingTokens.get(key) as bigint);
    await theirs.release();
  });

  it("passes it on with no script while the first pass's reserved tokens last, then gives it to the line above them all", async () => {
    const [caller, other] = [provider(), provider()];
    const keys = keySet("pass-local", 3);
    const { set: first, queued } = await contended(caller, other, keys);
    await first.release();
    let set = await caller.acquireAll(keys, TTL);
    const reserved = set.fencingTokens;
    for (let pass = 1; pass <= 5; pass++) {
      await set.release();
      set = await caller.acquireAll(keys, TTL);
      // A pass through the server would draw a token past the reserved block: these are the block's, one by one.
      for (const key of keys) expect(set.fencingTokens.get(key)).toBe((reserved.get(key) as bigint) + BigInt(pass));
    }
    expect((await caller.inspect(keys[0] as string))?.waiters).toBe(1);
    await set.release();
    const theirs = await queued;
    for (const key of keys) expect(theirs.fencingTokens.get(key) as bigint).toBeGreaterThan((reserved.get(key) as bigint) + BigInt(TOKEN_BLOCK));
    await theirs.release();
  });

  it("takes the usual path when a key of the lingering set was lost, behind the line that was waiting for the set", async () => {
    const [caller, other] = [provider(), provider()];
    const keys = keySet("pass-lost", 3);
    const { set: first, queued } = await contended(caller, other, keys);
    // Lost on the server before the release, so the set still lingers here (a lingering set goes back to the server at
    // the next turn of the event loop: a force-release sent after the release would race the give-back).
    await other.forceRelease(keys[2] as string);
    await first.release();
    const second = caller.acquireAll(keys, TTL);
    let mineYet = false;
    void second.then(() => {
      mineYet = true;
    });
    // The refused pass gave the set back, so the waiter queued for it gets it before this acquire.
    const theirs = await queued;
    expect(mineYet).toBe(false);
    await theirs.release();
    const mine = await second;
    for (const key of keys) expect(mine.fencingTokens.get(key) as bigint).toBeGreaterThan(theirs.fencingTokens.get(key) as bigint);
    await mine.release();
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

  it("passes a contended set of several slots one slot after another, then with no script on the tokens each slot reserved", async () => {
    const [caller, other] = [clusterProvider(), clusterProvider()];
    const keys = spreadKeys("pass-slots", 3);
    const blocker = await other.acquire(keys[0] as string, TTL);
    const waiting = caller.acquireAll(keys, TTL);
    await expect.poll(async () => (await other.inspect(keys[0] as string))?.waiters).toBe(1);
    await blocker.release();
    const first = await waiting;
    await first.release();
    const passed = await caller.acquireAll(keys, TTL);
    await passed.release();
    const again = await caller.acquireAll(keys, TTL);
    for (const key of keys) {
      expect(passed.fencingTokens.get(key) as bigint).toBeGreaterThan(first.fencingTokens.get(key) as bigint);
      expect((await caller.inspect(key))?.fencingToken).toBe((passed.fencingTokens.get(key) as bigint) + BigInt(TOKEN_BLOCK));
      expect(again.fencingTokens.get(key)).toBe((passed.fencingTokens.get(key) as bigint) + 1n);
    }
    await again.release();
    await expect.poll(async () => Promise.all(keys.map((key) => caller.inspect(key)))).toEqual([null, null, null]);
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
