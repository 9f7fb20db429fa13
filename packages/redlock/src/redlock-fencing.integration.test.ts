import { randomUUID } from "node:crypto";
import type { Lock } from "@distlock/core";
import { parseStoredHold } from "@distlock/redis/internal";
import { describe, expect, it, vi } from "vitest";
import { fiveMasters } from "../test/five-masters.js";
import type { RedlockLockProvider } from "./redlock-lock-provider.js";

const TTL_MS = 5_000;
/** Far above any wall clock in µs (~1.8e15 in 2026), so a proposal taken from the clock is outdated there. */
const HIGH = 5_000_000_000_000_000n;

const { servers, provider } = await fiveMasters();
const lockKey = (key: string) => `{distlock-redlock:${key}}:lock`;
const fenceKey = (key: string) => `{distlock-redlock:${key}}:fence`;

/** The token each node's hold stores for `key` (null where the node does not hold it). */
const storedTokens = (key: string) =>
  Promise.all(servers.map(async (server) => parseStoredHold(String(await server.command("GET", lockKey(key))))?.token ?? null));

/** Lua script calls served by all nodes so far. */
async function scriptCalls(): Promise<number> {
  const calls = await Promise.all(servers.map((server) => server.commandCalls("evalsha", "eval")));
  return calls.reduce((sum, n) => sum + n, 0);
}

/** Loads the scripts on every node and opens the provider's connections, so a count afterwards sees only the calls under test. */
async function warmUp(locks: RedlockLockProvider): Promise<void> {
  const key = `warm-up:${randomUUID()}`;
  await (await locks.acquire(key, { ttlMs: TTL_MS, autoRenew: false })).release();
  await vi.waitFor(async () => expect(await storedTokens(key)).toEqual([null, null, null, null, null]));
}

describe("fencing with one proposed token per attempt", () => {
  it("a fresh grant costs one script call per node, and every node stores the same token", async () => {
    const key = `one-round:${randomUUID()}`;
    const locks = provider();
    await warmUp(locks);
    const before = await scriptCalls();
    const lock = await locks.acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    const token = String(lock.fencingToken);
    await vi.waitFor(async () => expect(await storedTokens(key)).toEqual([token, token, token, token, token]));
    expect((await scriptCalls()) - before).toBe(5);
    await Promise.all(servers.map(async (server) => expect(await server.command("GET", fenceKey(key))).toBe(token)));
    await lock.release();
  });

  it("a proposal outdated on a majority is refused there, undone elsewhere, and raised above their counters in the same acquire", async () => {
    const key = `outbid:${randomUUID()}`;
    await Promise.all(servers.slice(0, 3).map((server) => server.command("SET", fenceKey(key), HIGH.toString())));
    const locks = provider();
    await warmUp(locks);
    const before = await scriptCalls();
    // One tryAcquire makes a single attempt, unless a majority's counters outbid its proposal.
    const lock = (await locks.tryAcquire(key, { ttlMs: TTL_MS, autoRenew: false })) as Lock;
    expect(lock.fencingToken).toBe(HIGH + 1n);
    const token = String(HIGH + 1n);
    await vi.waitFor(async () => expect(await storedTokens(key)).toEqual([token, token, token, token, token]));
    // 5 votes with the clock's proposal, 2 undos on the nodes that granted it, 5 votes with HIGH + 1.
    expect((await scriptCalls()) - before).toBe(12);
    await lock.release();
  });

  it("a minority whose counters are ahead refuses and is outvoted; the next holder's token still rises", async () => {
    const key = `ahead-minority:${randomUUID()}`;
    await Promise.all(servers.slice(0, 2).map((server) => server.command("SET", fenceKey(key), HIGH.toString())));
    const locks = provider();
    const first = await locks.acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    expect(first.fencingToken as bigint).toBeLessThan(HIGH);
    const token = String(first.fencingToken);
    await vi.waitFor(async () => expect(await storedTokens(key)).toEqual([null, null, token, token, token]));
    await first.release();
    const second = await provider().acquire(key, { ttlMs: TTL_MS, autoRenew: false });
    expect(second.fencingToken as bigint).toBeGreaterThan(first.fencingToken as bigint);
    await second.release();
  });

  it("an explicit owner re-enters from another provider with the same token while 2 of the nodes are down", async () => {
    const key = `reenter:${randomUUID()}`;
    const owner = `owner-${randomUUID()}`;
    const lock = await provider().acquire(key, { ttlMs: TTL_MS, owner });
    await Promise.all([servers[0]?.kill(), servers[1]?.kill()]);
    const again = await provider().acquire(key, { ttlMs: TTL_MS, owner });
    expect(again.holdCount).toBe(2);
    expect(again.fencingToken).toBe(lock.fencingToken);
  });
});
