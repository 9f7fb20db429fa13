import { randomUUID } from "node:crypto";
import { FencedOutError, type Lock, LockError, LockErrorCode } from "@distlock/core";
import { RedisLockProvider } from "@distlock/redis";
import { startRedis } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { FencingLock } from "../fencing-token.js";
import { redisFenceKey } from "./fence-key.js";
import { fencedDel, fencedHset, fencedRun, fencedSet } from "./fenced-writes.js";

const server = await startRedis();
const redis = new Redis(server.url);
const first = new RedisLockProvider({ url: server.url });
const second = new RedisLockProvider({ url: server.url });
afterAll(async () => {
  await Promise.allSettled([first.close(), second.close(), redis.quit()]);
  await server.close();
});

/**
 * Two holders of one lock, in the order that fencing is for: the first is force-released by an admin while it does
 * not know (no renewal runs, so its signal has not fired), and the second acquires. The first is now a stale holder.
 */
async function staleThenCurrent(): Promise<{ stale: Lock; current: Lock }> {
  const key = `lock:${randomUUID()}`;
  const stale = await first.acquire(key, { ttlMs: 60_000, autoRenew: false });
  expect(await second.forceRelease(key)).toBe(true);
  const current = await second.acquire(key, { ttlMs: 60_000 });
  expect(current.fencingToken).toBeGreaterThan(stale.fencingToken as bigint);
  expect(stale.signal.aborted).toBe(false);
  return { stale, current };
}

async function fencedOut(write: Promise<unknown>): Promise<FencedOutError> {
  const error = await write.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(FencedOutError);
  return error as FencedOutError;
}

describe("fenced writes on one Redis server", () => {
  it("refuses the stale holder's SET after the current holder wrote, naming both tokens, and changes nothing", async () => {
    const { stale, current } = await staleThenCurrent();
    const price = `price:${randomUUID()}`;
    await fencedSet(redis, current, price, "20");
    const error = await fencedOut(fencedSet(redis, stale, price, "10"));
    expect(error.code).toBe(LockErrorCode.FencedOut);
    expect(error.fencingToken).toBe(stale.fencingToken);
    expect(error.storedToken).toBe(current.fencingToken);
    expect(error.resource).toBe(`redis key "${price}"`);
    expect(await redis.get(price)).toBe("20");
    expect(await redis.get(redisFenceKey(price))).toBe(String(current.fencingToken));
  });

  it("lets the stale holder write before the current one has, and the current one after it", async () => {
    const { stale, current } = await staleThenCurrent();
    const price = `price:${randomUUID()}`;
    await fencedSet(redis, stale, price, "10");
    await fencedSet(redis, stale, price, "11");
    await fencedSet(redis, current, price, "20");
    expect(await redis.get(price)).toBe("20");
    await fencedOut(fencedSet(redis, stale, price, "12"));
  });

  it("keeps refusing the stale holder after the current one deleted the key", async () => {
    const { stale, current } = await staleThenCurrent();
    const price = `price:${randomUUID()}`;
    await fencedSet(redis, stale, price, "10");
    expect(await fencedDel(redis, current, price)).toBe(true);
    expect(await fencedDel(redis, current, price)).toBe(false);
    await fencedOut(fencedSet(redis, stale, price, "11"));
    expect(await redis.exists(price)).toBe(0);
  });

  it("runs several commands on several keys in one fenced step, and refuses a stale run whole", async () => {
    const { stale, current } = await staleThenCurrent();
    const [order, stock] = [`{shop:${randomUUID()}}:order`, `{shop:${randomUUID()}}:stock`];
    const replies = await fencedRun(redis, current, {
      keys: [order, stock],
      commands: [
        ["SET", order, "placed"],
        ["HINCRBY", stock, "widgets", -2],
      ],
    });
    expect(replies).toEqual(["OK", -2]);
    const error = await fencedOut(
      fencedRun(redis, stale, {
        keys: [stock, order],
        commands: [
          ["HINCRBY", stock, "widgets", -5],
          ["DEL", order],
        ],
      }),
    );
    expect(error.storedToken).toBe(current.fencingToken);
    expect(await redis.get(order)).toBe("placed");
    expect(await redis.hget(stock, "widgets")).toBe("-2");
  });

  it("refuses a stale run when any one of its keys has seen the newer token", async () => {
    const { stale, current } = await staleThenCurrent();
    const [a, b] = [`{pair:${randomUUID()}}:a`, `{pair:${randomUUID()}}:b`];
    await fencedSet(redis, current, b, "new");
    await fencedOut(
      fencedRun(redis, stale, {
        keys: [a, b],
        commands: [
          ["SET", a, "old"],
          ["SET", b, "old"],
        ],
      }),
    );
    expect(await redis.exists(a)).toBe(0);
    expect(await redis.exists(redisFenceKey(a))).toBe(0);
  });

  it("keeps the token in options.fenceKey when given, for every key of the write", async () => {
    const { stale, current } = await staleThenCurrent();
    const fenceKey = `fence:${randomUUID()}`;
    const [a, b] = [`a:${randomUUID()}`, `b:${randomUUID()}`];
    await fencedSet(redis, current, a, "new", { fenceKey });
    expect(await redis.get(fenceKey)).toBe(String(current.fencingToken));
    await fencedOut(fencedHset(redis, stale, b, { f: "old" }, { fenceKey }));
    expect(await redis.exists(b, redisFenceKey(a), redisFenceKey(b))).toBe(0);
  });

  it("sets a lease on the written key with px, never on the token key", async () => {
    const { current } = await staleThenCurrent();
    const session = `session:${randomUUID()}`;
    await fencedSet(redis, current, session, "data", { px: 60_000 });
    expect(await redis.pttl(session)).toBeGreaterThan(50_000);
    expect(await redis.pttl(redisFenceKey(session))).toBe(-1);
  });

  it("answers HSET's count of added fields", async () => {
    const { current } = await staleThenCurrent();
    const product = `product:${randomUUID()}`;
    expect(await fencedHset(redis, current, product, { name: "widget", price: 5 })).toBe(2);
    expect(await fencedHset(redis, current, product, { price: 6, colour: "red" })).toBe(1);
    expect(await redis.hgetall(product)).toEqual({ name: "widget", price: "6", colour: "red" });
  });

  it("rejects with the server's error when a command fails, running none of the commands after it", async () => {
    const { current } = await staleThenCurrent();
    const [text, after] = [`{t:${randomUUID()}}:text`, `{t:${randomUUID()}}:after`];
    await redis.set(text, "plain");
    const write = fencedRun(redis, current, {
      keys: [text, after],
      commands: [
        ["HSET", text, "f", "v"],
        ["SET", after, "x"],
      ],
    });
    await expect(write).rejects.toThrow(/WRONGTYPE/);
    expect(await redis.get(text)).toBe("plain");
    expect(await redis.exists(after)).toBe(0);
  });

  it("compares tokens as numbers, across digit counts and beyond 64 bits", async () => {
    const holder = (fencingToken: bigint): FencingLock => ({ key: "lock", fencingToken, signal: new AbortController().signal });
    const price = `price:${randomUUID()}`;
    await fencedSet(redis, holder(10n), price, "10");
    await fencedOut(fencedSet(redis, holder(9n), price, "9"));
    const huge = 2n ** 70n;
    await fencedSet(redis, holder(huge), price, "huge");
    await fencedOut(fencedSet(redis, holder(huge - 1n), price, "huge - 1"));
    await fencedOut(fencedSet(redis, holder(10n ** 20n), price, "fewer digits"));
    expect(await redis.get(price)).toBe("huge");
    expect(await redis.get(redisFenceKey(price))).toBe(huge.toString());
  });

  it("refuses a holder whose lease expired at its own side, so the write after the next holder's never reaches the server", async () => {
    const key = `lock:${randomUUID()}`;
    const expiring = await first.acquire(key, { ttlMs: 1_000, autoRenew: false });
    await untilAborted(expiring.signal);
    const current = await second.acquire(key, { ttlMs: 60_000 });
    const price = `price:${randomUUID()}`;
    await fencedSet(redis, current, price, "20");
    const error = await fencedSet(redis, expiring, price, "10").catch((reason: unknown) => reason);
    expect(error).toBe(expiring.signal.reason);
    expect(LockError.is(error, LockErrorCode.LockLost)).toBe(true);
    expect(await redis.get(price)).toBe("20");
  });
});

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
