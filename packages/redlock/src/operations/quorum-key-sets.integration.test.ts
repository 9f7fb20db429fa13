import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode } from "@distlock/core";
import { parseStoredHold, storedHold } from "@distlock/redis/internal";
import type { RedisServer } from "@distlock/test-servers";
import { describe, expect, it, vi } from "vitest";
import { fiveMasters } from "../../test/five-masters.js";
import type { RedlockLockProvider } from "../redlock-lock-provider.js";

const TTL = { ttlMs: 10_000, autoRenew: false };

const { servers, provider } = await fiveMasters();

const tag = (key: string) => `{distlock-redlock:${key}}`;
const keySet = (label: string, count: number) => {
  const base = `${label}:${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => `${base}:${i}`);
};

/** What each node stores of `key`'s hold: [owner secret, token] per node, null where it holds nothing. */
const storedHolds = (key: string) =>
  Promise.all(
    servers.map(async (server) => {
      const hold = parseStoredHold(String(await server.command("GET", `${tag(key)}:lock`)));
      return hold === undefined ? null : [hold.ownerSecret, hold.token];
    }),
  );

/** Lua script calls each node served so far. */
const scriptCalls = () => Promise.all(servers.map((server) => server.commandCalls("evalsha", "eval")));

/** Loads the set scripts on every node and opens the provider's connections, so a count afterwards sees only the calls under test. */
async function warmUp(locks: RedlockLockProvider): Promise<void> {
  const keys = keySet("warm-up", 2);
  await (await locks.acquireAll(keys, TTL)).release();
  for (const key of keys) await vi.waitFor(async () => expect(await storedHolds(key)).toEqual([null, null, null, null, null]));
}

/** Stores a hold of `key` by another owner on the nodes at `indexes`. */
async function holdElsewhere(key: string, indexes: readonly number[]): Promise<void> {
  const value = storedHold(`other-${randomUUID()}`, 1, "1", "other-holder");
  await Promise.all(indexes.map((i) => (servers[i] as RedisServer).command("SET", `${tag(key)}:lock`, value, "PX", "60000")));
}

describe("multi-key sets on a Redlock quorum", () => {
  it("takes a set with one script per node and releases it with one per node, every node storing each key's token", async () => {
    const locks = provider();
    await warmUp(locks);
    const keys = keySet("one-script", 6);
    const before = await scriptCalls();
    const set = await locks.acquireAll(keys, TTL);
    await vi.waitFor(async () => expect(await scriptCalls()).toEqual(before.map((n) => n + 1)));
    for (const lock of set.locks) {
      const stored = await storedHolds(lock.key);
      expect(new Set(stored.map((hold) => hold?.[1])), lock.key).toEqual(new Set([String(lock.fencingToken)]));
    }
    await set.release();
    await vi.waitFor(async () => expect(await scriptCalls()).toEqual(before.map((n) => n + 2)));
    for (const key of keys) expect(await storedHolds(key)).toEqual([null, null, null, null, null]);
  });

  it("a key another owner holds on a majority leaves nothing of the set held on any node", async () => {
    const keys = keySet("majority-held", 4);
    const blocked = keys[2] as string;
    await holdElsewhere(blocked, [0, 1, 2]);
    expect(await provider().tryAcquireAll(keys, TTL)).toBeNull();
    for (const key of keys) {
      const stored = await storedHolds(key);
      if (key === blocked) expect(stored.map((hold) => hold !== null)).toEqual([true, true, true, false, false]);
      else expect(stored, key).toEqual([null, null, null, null, null]);
    }
  });

  it("a key another owner holds on a minority: the majority grants the whole set, the minority none of it", async () => {
    const keys = keySet("minority-held", 3);
    const blocked = keys[0] as string;
    await holdElsewhere(blocked, [0, 1]);
    const set = await provider().tryAcquireAll(keys, TTL);
    expect(set).not.toBeNull();
    for (const key of keys.slice(1)) expect((await storedHolds(key)).map((hold) => hold !== null)).toEqual([false, false, true, true, true]);
    await set?.release();
  });

  it("never overtakes a line: a free key with a live waiter on a majority refuses the set, which takes nothing", async () => {
    const keys = keySet("line", 3);
    const lined = keys[1] as string;
    await Promise.all(
      servers.slice(0, 3).map(async (server) => {
        const [seconds] = (await server.command("TIME")) as [string, string];
        await server.command("ZADD", `${tag(lined)}:queue`, "1", "waiter-elsewhere");
        await server.command("HSET", `${tag(lined)}:waiters`, "waiter-elsewhere", String(Number(seconds) * 1000 + 60_000));
      }),
    );
    expect(await provider().tryAcquireAll(keys, TTL)).toBeNull();
    for (const key of keys) expect(await storedHolds(key)).toEqual([null, null, null, null, null]);
  });

  it("keeps Redlock's quorum: with 2 of 5 nodes killed a set is held on the other 3; with 3 killed it is QUORUM_NOT_REACHED and leaves nothing", async () => {
    const locks = provider();
    await warmUp(locks);
    const keys = keySet("faults", 3);
    await Promise.all([servers[3]?.kill(), servers[4]?.kill()]);
    const set = await locks.acquireAll(keys, TTL);
    for (const lock of set.locks) expect((await locks.inspect(lock.key))?.fencingToken).toBe(lock.fencingToken);
    await set.release();
    await servers[2]?.kill();
    const error = await locks.tryAcquireAll(keys, TTL).catch((failure: unknown) => failure);
    expect(LockError.is(error, LockErrorCode.QuorumNotReached), String(error)).toBe(true);
    for (const server of servers.slice(0, 2)) {
      for (const key of keys) expect(await server.command("EXISTS", `${tag(key)}:lock`), key).toBe(0);
    }
  });
});
