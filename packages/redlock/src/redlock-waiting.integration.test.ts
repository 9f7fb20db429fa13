import { randomUUID } from "node:crypto";
import { type RedisServer, startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const LONG_TTL_MS = 30_000;
/**
 * Time itself: a window in which a waiter wrongly woken by a minority of announcements would have sent its retry.
 * A correct waiter sends nothing in it, so there is no event to wait for; the window starts once the server has
 * delivered the announcements.
 */
const SETTLE_MS = 200;

const group = await startRedisGroup(5);
afterAll(() => group.close());

const providers: RedlockLockProvider[] = [];
afterEach(async () => {
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(options: { nodeTimeoutMs?: number; fencing?: boolean; waiterLeaseMs?: number } = {}): RedlockLockProvider {
  const created = new RedlockLockProvider({ url: group.url, ...options });
  providers.push(created);
  return created;
}

/** Lua script calls one node has served so far. */
const scriptCalls = (node: number) => (group.servers[node] as RedisServer).commandCalls("evalsha", "eval");

/**
 * Frees `key` on one node behind its holder's back and announces its first waiter there, as the node's release script
 * would; the node delivers the announcement to the one subscriber, the waiter.
 */
async function releaseOn(node: number, key: string): Promise<void> {
  const server = group.servers[node] as RedisServer;
  expect(await server.command("DEL", `{distlock-redlock:${key}}:lock`)).toBe(1);
  const [first] = (await server.command("ZRANGE", `{distlock-redlock:${key}}:queue`, "0", "0")) as string[];
  expect(await server.command("PUBLISH", `{distlock-redlock:${key}}:released`, first as string)).toBe(1);
}

describe("waiting on a majority of turn announcements", () => {
  it("a waiter retries only once a majority of nodes announced its turn, then takes the key at once", async () => {
    const key = `majority-wake:${randomUUID()}`;
    const holder = await provider().acquire(key, { ttlMs: LONG_TTL_MS, autoRenew: false });
    // Places in the queues outlive the test, so no refresh attempt blurs the count.
    const waiter = provider({ waiterLeaseMs: LONG_TTL_MS * 2 });
    const before = await scriptCalls(4);
    const waiting = waiter.acquire(key, { ttlMs: LONG_TTL_MS, waitMs: LONG_TTL_MS / 2 });
    waiting.catch(() => undefined);
    // The first attempt, then the waiting loop's attempt once it subscribed; both refused.
    await expect.poll(() => scriptCalls(4)).toBe(before + 2);
    await releaseOn(0, key);
    await releaseOn(1, key);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    expect(await scriptCalls(4)).toBe(before + 2);
    const releasedAt = performance.now();
    await releaseOn(2, key);
    const lock = await waiting;
    expect(performance.now() - releasedAt).toBeLessThan(LONG_TTL_MS / 10);
    expect(lock.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    await lock.release();
  });

  it("replies that arrived while the process was stalled count, even though the per-node timer is overdue when it resumes", async () => {
    const locks = provider({ nodeTimeoutMs: 100 });
    await (await locks.acquire(`stall-warm-up:${randomUUID()}`, { ttlMs: LONG_TTL_MS })).release();
    const attempt = locks.tryAcquire(`stall:${randomUUID()}`, { ttlMs: LONG_TTL_MS });
    const stalledUntil = performance.now() + 300;
    while (performance.now() < stalledUntil) {
      // A synchronous stall, as a long GC pause or a starved CPU would cause.
    }
    const lock = await attempt;
    expect(lock?.holdCount).toBe(1);
    await lock?.release();
  });

  it("a new provider's first acquire waits for its connections even when nodeTimeoutMs is shorter than connecting takes", async () => {
    // One fan-out only (no fencing round); later calls get the 1 ms bound, so the lock is left to close().
    const lock = await provider({ nodeTimeoutMs: 1, fencing: false }).acquire(`first-connect:${randomUUID()}`, { ttlMs: LONG_TTL_MS });
    expect(lock.holdCount).toBe(1);
  });
});
