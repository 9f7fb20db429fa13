import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow, newOwnerSecret } from "@distlock/core/internal";
import { startRedis } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { lockRecord } from "../test/lock-records.js";
import { providerPerTest } from "../test/provider-per-test.js";
import { QUEUED_ACQUIRE_SCRIPT } from "./scripts/queue-scripts.js";
import { ownerPrefix } from "./scripts/stored-hold.js";

const server = await startRedis();
afterAll(() => server.close());

const provider = providerPerTest(server.url);

const key = (label: string) => `queue:${label}:${randomUUID()}`;
const tag = (k: string) => `{distlock:${k}}`;
/** Resolves after `ms`: for time itself (a place or lease running out), never to order events. */
const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How many waiters the server has in line for `k`. */
const queueLength = (k: string) => server.command("LLEN", `${tag(k)}:queue`) as Promise<number>;

const scriptCalls = () => server.commandCalls("evalsha", "eval");

/** Queues a waiter that will never refresh or claim anything, as a crashed process leaves behind. */
async function queueGhostWaiter(k: string, waiterLeaseMs: number, ttlMs: number): Promise<void> {
  await server.command(
    "EVAL",
    QUEUED_ACQUIRE_SCRIPT.lua,
    "1",
    tag(k),
    ownerPrefix(newOwnerSecret()),
    String(ttlMs),
    "ghost",
    "ghost-waiter",
    String(waiterLeaseMs),
  );
}

describe("redis wait queue", () => {
  it("a holder that releases and loops straight back cannot overtake a queued waiter from another process", async () => {
    const [looper, waiterSide] = [provider(), provider()];
    const k = key("no-barging");
    const first = await looper.acquire(k, { ttlMs: 30_000 });
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    await first.release();
    expect(await looper.tryAcquire(k, { ttlMs: 30_000 })).toBeNull();
    const won = await waiting;
    expect(won.holdCount).toBe(1);
    expect(won.fencingToken as bigint).toBeGreaterThan(first.fencingToken as bigint);
    await won.release();
  });

  it("a waiter whose explicit owner and holder label contain spaces is handed the key under that owner", async () => {
    const [holderSide, waiterSide] = [provider(), provider({ holderLabel: "worker 7 on host a" })];
    const k = key("spaces");
    const owner = "job 42 / attempt 1";
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000, owner });
    await expect.poll(() => queueLength(k)).toBe(1);
    await held.release();
    const lock = await waiting;
    expect(await lockRecord(server, k)).toMatchObject({ free: false, ownerSecret: owner });
    expect(await waiterSide.inspect(k)).toMatchObject({ holder: expect.stringMatching(/:worker 7 on host a$/) });
    const again = await waiterSide.acquire(k, { ttlMs: 30_000, owner });
    expect(again.holdCount).toBe(2);
    await again.release();
    await lock.release();
    expect(await lockRecord(server, k)).toMatchObject({ free: true });
  });

  it("a hand-off skips a queue entry it cannot read (an older client's form) and serves the next waiter", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("old-entry");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const [seconds] = (await server.command("TIME")) as string[];
    await server.command("RPUSH", `${tag(k)}:queue`, "old-client-waiter");
    await server.command("HSET", `${tag(k)}:waiters`, "old-client-waiter", `${Number(seconds) * 1000 + 60_000} 30000 oldsecret old-holder`);
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(2);
    await held.release();
    const lock = await waiting;
    expect(lock.holdCount).toBe(1);
    await lock.release();
  });

  it("a second waiter in a provider that already waits on the key queues with one call, no refused first attempt", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("watched");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const first = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    const before = await scriptCalls();
    const second = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(2);
    expect((await scriptCalls()) - before).toBe(1);
    await held.release();
    await (await first).release();
    await (await second).release();
  });

  it("a release hands the key to the queued waiter with no further request from the waiter", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("zero-round-trip");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    const before = await scriptCalls();
    await held.release();
    const lock = await waiting;
    expect((await scriptCalls()) - before).toBe(1);
    expect((await waiterSide.inspect(k))?.fencingToken).toBe(lock.fencingToken);
    await lock.release();
    expect(await waiterSide.inspect(k)).toBeNull();
  });

  it("a waiter that times out leaves the queue, and the next release skips it", async () => {
    const [holderSide, quitter, stayer] = [provider(), provider(), provider()];
    const k = key("timeout-leaves");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const timedOut = quitter.acquire(k, { ttlMs: 30_000, waitMs: 150 }).catch((e: unknown) => e);
    await expect.poll(() => queueLength(k)).toBe(1);
    const waiting = stayer.acquire(k, { ttlMs: 30_000 });
    expect(LockError.is(await timedOut, LockErrorCode.LockTimeout)).toBe(true);
    await expect.poll(() => server.command("HLEN", `${tag(k)}:waiters`)).toBe(1);
    await held.release();
    const lock = await waiting;
    expect((await stayer.inspect(k))?.fencingToken).toBe(lock.fencingToken);
  });

  it("a crashed waiter's expired entry is skipped: the live waiter behind it gets the key at once", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("ghost-expired");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    await queueGhostWaiter(k, 100, 30_000);
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(2);
    // Time itself: the ghost's 100 ms place runs out.
    await elapse(150);
    const releasedAt = monotonicNow();
    await held.release();
    await waiting;
    expect(monotonicNow() - releasedAt).toBeLessThan(500);
  });

  it("a queued refusal names the token of the holder it found, also one it handed the free key to: every later grant's is above it", async () => {
    const inspector = provider();
    const k = key("refusal-bound");
    const queueAttempt = (waiterId: string) =>
      server.command("EVAL", QUEUED_ACQUIRE_SCRIPT.lua, "1", tag(k), ownerPrefix(newOwnerSecret()), "30000", waiterId, waiterId, "30000");
    const held = await inspector.acquire(k, { ttlMs: 300, autoRenew: false });
    expect(await queueAttempt("first")).toEqual([0, String(held.fencingToken), expect.any(Number)]);
    // The holder's lease runs out unreleased: the next attempt hands the free key to the head of the line and is refused.
    await elapse(400);
    const [kind, handedToken] = (await queueAttempt("second")) as [number, string, number];
    expect(kind).toBe(0);
    expect(BigInt(handedToken)).toBeGreaterThan(held.fencingToken as bigint);
    expect((await inspector.inspect(k))?.fencingToken).toBe(BigInt(handedToken));
  });

  it("a lock handed to a waiter that crashed before claiming it frees itself after that waiter's ttl", async () => {
    const [holderSide, waiterSide] = [provider(), provider()];
    const k = key("ghost-live");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    await queueGhostWaiter(k, 30_000, 400);
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(2);
    const releasedAt = monotonicNow();
    await held.release();
    expect((await waiterSide.inspect(k))?.holder).toBe("ghost");
    await waiting;
    expect(monotonicNow() - releasedAt).toBeGreaterThanOrEqual(350);
    expect(monotonicNow() - releasedAt).toBeLessThan(2_000);
  });

  it("waiters queued behind a holder whose lease ends unreleased get the key in order within a fraction of their ttl", async () => {
    const crashed = provider();
    const k = key("expired-holder");
    await crashed.acquire(k, { ttlMs: 300, autoRenew: false });
    const order: number[] = [];
    const started = monotonicNow();
    const waiters: Promise<void>[] = [];
    for (const [index, side] of [provider(), provider(), provider()].entries()) {
      // Arrival is the server's: each waiter starts once the ones before it are in line (or, if the lease ran out meanwhile, served).
      await expect.poll(async () => (await queueLength(k)) + order.length, { interval: 5 }).toBeGreaterThanOrEqual(index);
      waiters.push(
        (async () => {
          const lock = await side.acquire(k, { ttlMs: 2_000 });
          order.push(index);
          await lock.release();
        })(),
      );
    }
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2]);
    expect(monotonicNow() - started).toBeLessThan(1_500);
  });

  it("a waiter keeps its place by refreshing it well within waiterLeaseMs", async () => {
    const [holderSide, waiterSide] = [provider(), provider({ waiterLeaseMs: 90 })];
    const k = key("refresh");
    const held = await holderSide.acquire(k, { ttlMs: 30_000 });
    const waiting = waiterSide.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    // Time itself: over four 90 ms waiter leases, each of which would end the place without a refresh.
    await elapse(400);
    expect(await queueLength(k)).toBe(1);
    await held.release();
    await waiting;
  });
});
