import { randomUUID } from "node:crypto";
import { LockErrorCode } from "@distlock/core";
import { parseStoredHold, storedHold } from "@distlock/redis/internal";
import { type RedisServer, startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "./redlock-lock-provider.js";
import { QUORUM_ACQUIRE_SCRIPT } from "./scripts/quorum-lock-scripts.js";

const TTL_MS = 30_000;
/** Places in the queues outlive each test, so no refresh attempt blurs a count. */
const WAITER_LEASE_MS = 60_000;

const group = await startRedisGroup(5);
afterAll(() => group.close());
// Loads the scripts on every node, so the counts below see no NOSCRIPT retry.
beforeAll(async () => {
  const locks = new RedlockLockProvider({ url: group.url });
  await (await locks.acquire(`warm-up:${randomUUID()}`)).release();
  await locks.close();
});

const providers: RedlockLockProvider[] = [];
afterEach(async () => {
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(options: { waiterLeaseMs?: number } = {}): RedlockLockProvider {
  const created = new RedlockLockProvider({ url: group.url, waiterLeaseMs: WAITER_LEASE_MS, ...options });
  providers.push(created);
  return created;
}

const server = (node: number) => group.servers[node] as RedisServer;
const lockKey = (key: string) => `{distlock-redlock:${key}}:lock`;
const queueKey = (key: string) => `{distlock-redlock:${key}}:queue`;
const waitersKey = (key: string) => `{distlock-redlock:${key}}:waiters`;
const scriptCalls = (node: number) => server(node).commandCalls("evalsha", "eval");
/** [k1, v1, k2, v2, ...] as [[k1, v1], [k2, v2], ...]. */
const pairs = (flat: string[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]] as const);
const queueLengths = (key: string) => Promise.all(group.servers.map((s) => s.command("ZCARD", queueKey(key))));

describe("the nodes' wait queues", () => {
  it("a release wakes only the first waiter: the others send nothing, not even a refresh of their places", async () => {
    const key = `first-only:${randomUUID()}`;
    const holder = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    let granted = 0;
    // The first to get the key hands it to the test; the others release at once.
    const waiters = [0, 1, 2].map(async () => {
      const lock = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
      granted += 1;
      if (granted === 1) return lock;
      await lock.release();
      return undefined;
    });
    await expect.poll(() => queueLengths(key)).toEqual([3, 3, 3, 3, 3]);
    const places = () => Promise.all(group.servers.map(async (s) => Object.fromEntries(pairs((await s.command("HGETALL", waitersKey(key))) as string[]))));
    const before = await places();
    await holder.release();
    const first = await Promise.race(waiters);
    expect(await queueLengths(key)).toEqual([2, 2, 2, 2, 2]);
    // Every attempt of a waiter rewrites its place's expiry on every node it reaches: the two others sent none. (A count
    // of script calls cannot say this exactly: the first waiter re-checks its grant when a node was still held by the
    // holder, whose release reaches the nodes at slightly different times.)
    const after = await places();
    after.forEach((entries, node) => {
      expect(Object.keys(entries)).toHaveLength(2);
      for (const [id, expires] of Object.entries(entries)) expect(expires).toBe(before[node]?.[id]);
    });
    await first?.release();
    await Promise.all(waiters);
    expect(granted).toBe(3);
  });

  it("a second waiter in a provider that already waits on the key queues with one call per node, no refused first attempt", async () => {
    const key = `watched:${randomUUID()}`;
    const holder = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    const waiters = provider();
    const first = waiters.acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    await expect.poll(() => queueLengths(key)).toEqual([1, 1, 1, 1, 1]);
    const before = await scriptCalls(0);
    const second = waiters.acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    await expect.poll(() => queueLengths(key)).toEqual([2, 2, 2, 2, 2]);
    expect(await scriptCalls(0)).toBe(before + 1);
    await holder.release();
    await (await first).release();
    await (await second).release();
  });

  it("a free key is refused to newcomers while a live waiter is first in line, and granted once its place expires", async () => {
    const key = `gated:${randomUUID()}`;
    // A waiter that stalled: queued on every node, its place ending in 400 ms by each node's clock.
    await Promise.all(
      group.servers.map(async (s) => {
        const [seconds, micros] = (await s.command("TIME")) as string[];
        const expiresMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + 400;
        await s.command("ZADD", queueKey(key), "1", "stalled-waiter");
        await s.command("HSET", waitersKey(key), "stalled-waiter", String(expiresMs));
      }),
    );
    const locks = provider();
    expect(await locks.tryAcquire(key, { ttlMs: TTL_MS })).toBeNull();
    const startedAt = performance.now();
    const lock = await locks.acquire(key, { ttlMs: TTL_MS, waitMs: 5_000 });
    expect(performance.now() - startedAt).toBeGreaterThan(200);
    expect(await queueLengths(key)).toEqual([0, 0, 0, 0, 0]);
    await lock.release();
  });

  it("a free node grants a waiter whose ticket is ahead of its first waiter's: its place arrived after the last announcement", async () => {
    const key = `late-place:${randomUUID()}`;
    const node = server(0);
    const [seconds] = (await node.command("TIME")) as string[];
    await node.command("ZADD", queueKey(key), "200", "announced-first");
    await node.command("HSET", waitersKey(key), "announced-first", String(Number(seconds) * 1000 + 60_000));
    const attempt = (id: string, ticket: number) =>
      node.command("EVAL", QUORUM_ACQUIRE_SCRIPT.lua, "1", `{distlock-redlock:${key}}`, `secret-${id}`, "holder", "30000", "", id, String(ticket), "60000");
    expect(((await attempt("behind", 300)) as unknown[])[0]).toBe(0);
    // Granted, with the two waiters left in the queue.
    expect(await attempt("ahead", 100)).toEqual([1, "", 1, 30_000, 2]);
    expect(await node.command("ZRANGE", queueKey(key), "0", "-1")).toEqual(["announced-first", "behind"]);
  });

  it("a waiter that gives up leaves every queue, so it holds up no one", async () => {
    const key = `gives-up:${randomUUID()}`;
    const holder = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    const giveUp = provider().acquire(key, { ttlMs: TTL_MS, waitMs: 300 });
    await expect(giveUp).rejects.toMatchObject({ code: LockErrorCode.LockTimeout });
    expect(await queueLengths(key)).toEqual([0, 0, 0, 0, 0]);
    await holder.release();
    const next = await provider().tryAcquire(key, { ttlMs: TTL_MS });
    expect(next?.holdCount).toBe(1);
    await next?.release();
  });

  it("a waiter that wins on a majority leaves the queue of a node that refused it", async () => {
    const key = `leaves-refusing:${randomUUID()}`;
    const holder = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    const waiting = provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    await expect.poll(() => queueLengths(key)).toEqual([1, 1, 1, 1, 1]);
    // Node 4's copy now belongs to someone else, so it refuses the waiter after the release.
    await server(4).command("SET", lockKey(key), storedHold("someone-else", 1, "1", "elsewhere"));
    await holder.release();
    const lock = await waiting;
    expect(await queueLengths(key)).toEqual([0, 0, 0, 0, 0]);
    expect(parseStoredHold(String(await server(4).command("GET", lockKey(key))))?.ownerSecret).toBe("someone-else");
    await lock.release();
  });
});
