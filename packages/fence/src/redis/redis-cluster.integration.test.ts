import { randomUUID } from "node:crypto";
import { FencedOutError, InvalidArgumentError } from "@distlock/core";
import { RedisLockProvider } from "@distlock/redis";
import { keySlot } from "@distlock/redis/internal";
import { startRedisCluster } from "@distlock/test-servers";
import { Cluster } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisFenceKey } from "./fence-key.js";
import { fencedDel, fencedRun, fencedSet } from "./fenced-writes.js";
import { optimisticTransaction } from "./optimistic-transaction.js";

const cluster = await startRedisCluster({ masters: 3 });
const [node] = cluster.nodes;
if (node === undefined) throw new Error("the cluster has no nodes");
const redis = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
const other = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
const first = new RedisLockProvider({ url: cluster.url });
const second = new RedisLockProvider({ url: cluster.url });
afterAll(async () => {
  await Promise.allSettled([first.close(), second.close(), redis.quit(), other.quit()]);
  await cluster.close();
});

/** The slot the cluster itself computes for `key`. */
async function serverSlot(key: string): Promise<number> {
  return Number(await node?.command("CLUSTER", "KEYSLOT", key));
}

const id = randomUUID();
/** Keys of every shape the token key rule distinguishes. */
const KEYS = [
  `plain:${id}`,
  `{user:${id}}:cart`,
  `cart:{user:${id}}`,
  `{user:${id}}}:stray-after-tag`,
  `{user:${id}}{other}:second-tag`,
  `}{user:${id}}:close-before-tag`,
  `open{only:${id}`,
  `{{nested:${id}}}`,
  `{:${id}`,
  `ünïcødé:${id}:😀`,
];

describe("fenced writes on a 3-master Redis Cluster", () => {
  it.each(KEYS)("keeps the token of %s in the key's own slot, as the cluster computes it", async (key) => {
    const fenceKey = redisFenceKey(key);
    expect(await serverSlot(fenceKey)).toBe(await serverSlot(key));
    expect(keySlot(fenceKey)).toBe(keySlot(key));
  });

  it("spreads the keys of the test over several slots, so the same-slot answers are not one slot's luck", async () => {
    expect(new Set(await Promise.all(KEYS.map(serverSlot))).size).toBeGreaterThan(5);
  });

  it.each(["a}b", "x{}y", "{}{user}"])("has no token key for %s, which has a } but no hash tag", async (key) => {
    expect(() => redisFenceKey(key)).toThrow(InvalidArgumentError);
    expect(keySlot(key)).toBe(await serverSlot(key));
  });

  it.each(KEYS)("refuses the stale holder's write to %s after the current holder's, changing nothing", async (key) => {
    const lockKey = `lock:${randomUUID()}`;
    const stale = await first.acquire(lockKey, { ttlMs: 60_000, autoRenew: false });
    expect(await second.forceRelease(lockKey)).toBe(true);
    const current = await second.acquire(lockKey, { ttlMs: 60_000 });
    await fencedSet(redis, current, key, "current");
    const error = await fencedSet(redis, stale, key, "stale").catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(FencedOutError);
    expect((error as FencedOutError).storedToken).toBe(current.fencingToken);
    expect(await redis.get(key)).toBe("current");
    expect(await fencedDel(redis, current, key)).toBe(true);
  });

  it("lets the cluster refuse (CROSSSLOT) an explicit fenceKey in another slot, writing nothing", async () => {
    const lock = await first.acquire(`lock:${randomUUID()}`, { ttlMs: 60_000 });
    const [key, fenceKey] = [`{a:${id}}:data`, `{b:${id}}:fence`];
    expect(await serverSlot(fenceKey)).not.toBe(await serverSlot(key));
    await expect(fencedSet(redis, lock, key, "v", { fenceKey })).rejects.toThrow(/CROSSSLOT|same slot/);
    expect(await redis.exists(key)).toBe(0);
    expect(await redis.exists(fenceKey)).toBe(0);
  });

  it("runs commands on several keys of one hash tag in one fenced step", async () => {
    const lock = await first.acquire(`lock:${randomUUID()}`, { ttlMs: 60_000 });
    const [order, stock] = [`{shop:${id}}:order`, `{shop:${id}}:stock`];
    expect(
      await fencedRun(redis, lock, {
        keys: [order, stock],
        commands: [
          ["SET", order, "placed"],
          ["HINCRBY", stock, "widgets", -1],
        ],
      }),
    ).toEqual(["OK", -1]);
  });

  it("retries an optimistic transaction whose watched key another client changed, and counts the conflict", async () => {
    const key = `{counter:${id}}`;
    let calls = 0;
    const result = await optimisticTransaction(
      redis,
      {
        watch: [key],
        run: async (read) => {
          const current = Number((await read.get(key)) ?? 0);
          if (++calls === 1) await other.set(key, "100");
          return [["SET", key, current + 1]];
        },
      },
      { baseDelayMs: 0, maxDelayMs: 0 },
    );
    expect(result).toEqual({ value: ["OK"], attempts: 2, conflicts: 1 });
    expect(await redis.get(key)).toBe("101");
  });
});
