import { randomUUID } from "node:crypto";
import { type Lock, LockError, LockErrorCode } from "@distlock/core";
import { startRedis } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

// Each provider is its own cohort (its own driver and connections), as a provider in another process would be.
const server = await startRedis();
afterAll(() => server.close());

const providers: RedisLockProvider[] = [];
afterEach(async () => {
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(options: Partial<RedisLockProviderOptions> = {}): RedisLockProvider {
  const created = new RedisLockProvider({ url: server.url, ...options });
  providers.push(created);
  return created;
}

const key = (label: string) => `passes:${label}:${randomUUID()}`;
const tag = (k: string) => `{distlock:${k}}`;
const queueLength = (k: string) => server.command("LLEN", `${tag(k)}:queue`) as Promise<number>;
const publishes = () => server.commandCalls("publish");

type Grant = { name: string; token: bigint };

/**
 * Queues `waiters` one at a time, each only once the one before is in the server's line; every grant is recorded in the
 * order it came and released at once, so the next one follows.
 */
async function queueInOrder(k: string, waiters: Array<[name: string, side: RedisLockProvider]>) {
  const grants: Grant[] = [];
  const done: Promise<void>[] = [];
  const before = await queueLength(k);
  for (const [index, [name, side]] of waiters.entries()) {
    done.push(
      side.acquire(k, { ttlMs: 30_000 }).then(async (lock) => {
        grants.push({ name, token: lock.fencingToken as bigint });
        await lock.release();
      }),
    );
    await expect.poll(() => queueLength(k)).toBe(before + index + 1);
  }
  return { grants, done: Promise.all(done) };
}

describe("redis local passes (process cohorts)", () => {
  it("a release passes the key to a waiter of its own provider ahead of an earlier one elsewhere, at most localPasses times in a row, each with a higher token and no message", async () => {
    const [here, elsewhere] = [provider({ localPasses: 2 }), provider()];
    const k = key("bound");
    const holder = await here.acquire(k, { ttlMs: 30_000 });
    const waiters = await queueInOrder(k, [
      ["remote", elsewhere],
      ["local-1", here],
      ["local-2", here],
      ["local-3", here],
    ]);
    const publishedBefore = await publishes();
    await holder.release();
    await waiters.done;
    expect(waiters.grants.map((g) => g.name)).toEqual(["local-1", "local-2", "remote", "local-3"]);
    const tokens = [holder.fencingToken as bigint, ...waiters.grants.map((g) => g.token)];
    for (let i = 1; i < tokens.length; i++) expect(tokens[i] as bigint).toBeGreaterThan(tokens[i - 1] as bigint);
    // Only the two hand-offs that crossed to the line were announced: to "remote", and from it to "local-3".
    expect((await publishes()) - publishedBefore).toBe(2);
    expect(await server.command("EXISTS", `${tag(k)}:lock`, `${tag(k)}:queue`)).toBe(0);
  });

  it("with localPasses 0 the line stays strictly first come, first served across providers", async () => {
    const [here, elsewhere] = [provider({ localPasses: 0 }), provider()];
    const k = key("strict");
    const holder = await here.acquire(k, { ttlMs: 30_000 });
    const waiters = await queueInOrder(k, [
      ["remote", elsewhere],
      ["local-1", here],
      ["local-2", here],
    ]);
    await holder.release();
    await waiters.done;
    expect(waiters.grants.map((g) => g.name)).toEqual(["remote", "local-1", "local-2"]);
  });

  it("keeps the bound when two workers of one provider take turns, so that its local line empties at every pass", async () => {
    const localPasses = 2;
    const [here, elsewhere] = [provider({ localPasses }), provider()];
    const k = key("turns");
    const grants: string[] = [];
    let lock = await here.acquire(k, { ttlMs: 30_000 });
    grants.push("local");
    // Another worker of `here` is in line first, then the remote one.
    let next = here.acquire(k, { ttlMs: 30_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    const remote = elsewhere.acquire(k, { ttlMs: 30_000, waitMs: 10_000 }).then((won) => {
      grants.push("remote");
      return won;
    });
    await expect.poll(() => queueLength(k)).toBe(2);
    // Each worker comes back for the key and is in line again before the other releases it.
    while (!grants.includes("remote") && grants.length < 10) {
      await lock.release();
      const settled = await Promise.race([next.then((won) => ({ won })), remote.then(() => undefined)]);
      if (settled === undefined) break;
      lock = settled.won;
      grants.push("local");
      next = here.acquire(k, { ttlMs: 30_000 });
      await expect.poll(() => queueLength(k)).toBe(2);
    }
    if (!grants.includes("remote")) await lock.release();
    // The first worker's hold, the second's turn ahead of the remote waiter, then `localPasses` passes over it.
    expect(grants).toEqual(["local", "local", "local", "local", "remote"]);
    await (await remote).release();
    await (await next).release();
  });

  it("a passed hold is the waiter's own on the server: it renews, and its signal aborts with LOCK_LOST once the server drops it", async () => {
    const here = provider({ localPasses: 4 });
    const k = key("own");
    const holder = await here.acquire(k, { ttlMs: 30_000 });
    let passed: Lock | undefined;
    const waiting = here.acquire(k, { ttlMs: 2_000 }).then((lock) => {
      passed = lock;
      return lock;
    });
    await expect.poll(() => queueLength(k)).toBe(1);
    await holder.release();
    const lock = await waiting;
    expect(passed).toBe(lock);
    expect(lock.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    expect(Number(await server.command("PTTL", `${tag(k)}:lock`))).toBeLessThanOrEqual(2_000);
    await lock.renew(5_000);
    expect(Number(await server.command("PTTL", `${tag(k)}:lock`))).toBeGreaterThan(2_000);
    await server.command("DEL", `${tag(k)}:lock`);
    const error = await lock.renew().catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.LockLost), String(error)).toBe(true);
    expect(lock.signal.aborted).toBe(true);
  });
});
