import { randomUUID } from "node:crypto";
import { monotonicNow, newOwnerSecret } from "@distlock/core/internal";
import { startRedis } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { providerPerTest } from "../../test/provider-per-test.js";
import { keySlot } from "../keys/key-slot.js";
import { parseStoredHold } from "../scripts/stored-hold.js";
import { SEMAPHORE_ACQUIRE_SCRIPT, SEMAPHORE_LEAVE_SCRIPT, SEMAPHORE_RELEASE_SCRIPT } from "./semaphore-scripts.js";
import { SEMAPHORE_RENEW_SCRIPT } from "./semaphore-state-scripts.js";

const server = await startRedis();
afterAll(() => server.close());

const provider = providerPerTest(server.url);

const semaphoreName = (label: string) => `semaphore:${label}:${randomUUID()}`;
const tag = (name: string) => `{distlock:${name}}`;
/** Resolves after `ms`: for time itself (a lease running out, a window in which nothing may happen), never to order events. */
const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lineLength = (name: string) => server.command("LLEN", `${tag(name)}:sem:queue`) as Promise<number>;

describe("redis semaphore", () => {
  it("keeps a lone holder's grant as one string whose expiry is its lease, with no state hash, and deletes it on release", async () => {
    const name = semaphoreName("lone");
    const semaphore = provider().semaphore(name, { permits: 4 });
    const permit = await semaphore.acquire({ ttlMs: 30_000, count: 3 });
    const holders = `${tag(name)}:sem:holders`;
    expect(await server.command("TYPE", holders)).toBe("string");
    const lone = parseStoredHold((await server.command("GET", holders)) as string);
    // The label: the permit count, then the holder label.
    expect(lone).toMatchObject({ holdCount: 3, token: String(permit.fencingToken), label: expect.stringMatching(/^4 ./) });
    expect(Number(await server.command("PTTL", holders))).toBeGreaterThan(20_000);
    expect(Number(await server.command("PTTL", holders))).toBeLessThanOrEqual(30_000);
    expect(await server.command("EXISTS", `${tag(name)}:sem:state`)).toBe(0);
    expect(await semaphore.inspect()).toMatchObject({
      permits: 4,
      inUse: 3,
      waiters: 0,
      holders: [{ holder: lone?.label.slice(2), count: 3, fencingToken: permit.fencingToken }],
    });
    expect(await semaphore.tryAcquire({ count: 2 })).toBeNull();
    expect(await server.command("TYPE", holders)).toBe("string");
    await permit.release();
    for (const suffix of ["holders", "state", "queue"]) expect(await server.command("EXISTS", `${tag(name)}:sem:${suffix}`)).toBe(0);
    expect(await server.command("GET", `${tag(name)}:sem:fence`)).toBe(String(permit.fencingToken));
  });

  it("moves a lone grant into holders sorted by expiry and one hash of permit counts and grants when a second holder comes, keeping its lease, and leaves only the fencing counter once idle", async () => {
    const name = semaphoreName("layout");
    const semaphore = provider().semaphore(name, { permits: 4 });
    const first = await semaphore.acquire({ ttlMs: 30_000, count: 3 });
    const loneUntil = Date.now() + Number(await server.command("PTTL", `${tag(name)}:sem:holders`));
    const second = await semaphore.acquire({ ttlMs: 60_000, count: 1 });
    expect(second.fencingToken as bigint).toBeGreaterThan(first.fencingToken as bigint);
    const [firstSecret, firstExpiry, secondSecret] = (await server.command("ZRANGE", `${tag(name)}:sem:holders`, "0", "-1", "WITHSCORES")) as string[];
    // The server's clock and this one may differ by a few ms.
    expect(Math.abs(Number(firstExpiry) - loneUntil)).toBeLessThan(1_000);
    const state = `${tag(name)}:sem:state`;
    expect(await server.command("HGET", state, `g:${firstSecret}`)).toMatch(new RegExp(`^3 ${first.fencingToken} `));
    expect(await server.command("HGET", state, `g:${secondSecret}`)).toMatch(new RegExp(`^1 ${second.fencingToken} `));
    expect(await server.command("HMGET", state, "total", "free")).toEqual(["4", "0"]);
    expect(Number(await server.command("PTTL", state))).toBeGreaterThan(50_000);
    await first.release();
    expect(await server.command("HGET", state, "free")).toBe("3");
    await second.release();
    for (const suffix of ["holders", "state", "queue"]) expect(await server.command("EXISTS", `${tag(name)}:sem:${suffix}`)).toBe(0);
    expect(await server.command("GET", `${tag(name)}:sem:fence`)).toBe(String(second.fencingToken));
  });

  it("a lone holder's renewal extends its string's expiry, and one that has lapsed is refused", async () => {
    const name = semaphoreName("lone-renew");
    const [secret, other] = [newOwnerSecret(), newOwnerSecret()];
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), secret, "1000", "label", "2", "1");
    const renew = (owner: string, ttlMs: number) => server.command("EVAL", SEMAPHORE_RENEW_SCRIPT.lua, "1", tag(name), owner, String(ttlMs));
    expect(await renew(other, 60_000)).toEqual([0]);
    expect(await renew(secret, 60_000)).toEqual([1]);
    expect(Number(await server.command("PTTL", `${tag(name)}:sem:holders`))).toBeGreaterThan(50_000);
    // Never shortened.
    expect(await renew(secret, 1_000)).toEqual([1]);
    expect(Number(await server.command("PTTL", `${tag(name)}:sem:holders`))).toBeGreaterThan(50_000);
    await server.command("PEXPIRE", `${tag(name)}:sem:holders`, "1");
    await expect.poll(() => server.command("EXISTS", `${tag(name)}:sem:holders`)).toBe(0);
    expect(await renew(secret, 60_000)).toEqual([0]);
    expect(await server.command("EVAL", SEMAPHORE_RELEASE_SCRIPT.lua, "1", tag(name), secret, "test:channel")).toBe(0);
  });

  it("puts every key of a semaphore in one Cluster slot", () => {
    const name = semaphoreName("slot");
    const slots = ["holders", "state", "fence", "queue"].map((suffix) => keySlot(`${tag(name)}:sem:${suffix}`));
    expect(new Set(slots).size).toBe(1);
  });

  it("a holder left by a crashed process is dropped by the next script once its lease has run out, and its permits are granted", async () => {
    const name = semaphoreName("crashed");
    // What a process that took both permits and then died leaves behind: nobody will renew or release it.
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), "ghost-secret", "300", "ghost", "2", "2");
    const semaphore = provider().semaphore(name, { permits: 2 });
    expect(await semaphore.tryAcquire()).toBeNull();
    const started = monotonicNow();
    const permit = await semaphore.acquire({ ttlMs: 30_000, count: 2, waitMs: 5_000 });
    expect(monotonicNow() - started).toBeLessThan(2_000);
    expect(await server.command("ZSCORE", `${tag(name)}:sem:holders`, "ghost-secret")).toBeNull();
    await permit.release();
  });

  it("frees the permits of grants whose holders key expired before any script dropped them, while the line kept the state alive", async () => {
    const name = semaphoreName("holders-expired");
    const [holders, state] = [`${tag(name)}:sem:holders`, `${tag(name)}:sem:state`];
    const acquire = (...args: string[]) => server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), ...args);
    await acquire("ghost-secret", "100", "ghost", "1", "1");
    // A waiter that joins (moving the lone grant into holders, which then expire at twice the lease left) and gives up.
    expect(await acquire("waiter-secret", "30000", "waiter", "1", "1", "waiter-id", "3000", "test:channel")).toEqual([
      0,
      expect.any(String),
      expect.any(Number),
    ]);
    await server.command("EVAL", SEMAPHORE_LEAVE_SCRIPT.lua, "1", tag(name), "waiter-secret", "waiter-id");
    const deadline = monotonicNow() + 5_000;
    while ((await server.command("EXISTS", holders)) === 1 && monotonicNow() < deadline) await elapse(10);
    expect(await server.command("EXISTS", holders)).toBe(0);
    expect(await server.command("HMGET", state, "free", "g:ghost-secret")).toEqual(["0", expect.any(String)]);
    const permit = await provider().semaphore(name, { permits: 1 }).acquire({ ttlMs: 30_000, waitMs: 2_000 });
    expect(await server.command("HGET", state, "g:ghost-secret")).toBeNull();
    expect(await server.command("EVAL", SEMAPHORE_RELEASE_SCRIPT.lua, "1", tag(name), "ghost-secret", "test:channel")).toBe(0);
    await permit.release();
    expect(await server.command("EXISTS", holders, state)).toBe(0);
  });

  it("a release after its own lease ran out answers not held, and the lapsed permits count as free again", async () => {
    const name = semaphoreName("late-release");
    const state = `${tag(name)}:sem:state`;
    const release = (secret: string) => server.command("EVAL", SEMAPHORE_RELEASE_SCRIPT.lua, "1", tag(name), secret, "test:channel");
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), "late-secret", "100", "late", "3", "2");
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), "live-secret", "30000", "live", "3", "1");
    await elapse(150);
    expect(await release("late-secret")).toBe(0);
    expect(await server.command("HMGET", state, "free", "g:late-secret")).toEqual(["2", null]);
    expect(await release("live-secret")).toBe(1);
    expect(await server.command("EXISTS", state)).toBe(0);
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), "alone-secret", "100", "alone", "3", "3");
    await elapse(150);
    expect(await release("alone-secret")).toBe(0);
    expect(await server.command("EXISTS", state, `${tag(name)}:sem:holders`)).toBe(0);
  });

  it("a waiter is woken by the release's message, not by polling: no script runs while it waits", async () => {
    // A long waiter lease and TTL push the safety-net refresh to 10 s, far beyond this test's bounds.
    const options = { waiterLeaseMs: 30_000 };
    const name = semaphoreName("wake");
    const holder = await provider(options).semaphore(name, { permits: 2 }).acquire({ ttlMs: 60_000, count: 2 });
    const waiting = provider(options).semaphore(name, { permits: 2 }).acquire({ ttlMs: 60_000 });
    await expect.poll(() => lineLength(name), { timeout: 10_000 }).toBe(1);
    const callsBefore = await server.commandCalls("evalsha", "eval");
    await elapse(500);
    expect(await server.commandCalls("evalsha", "eval")).toBe(callsBefore);
    const releasedAt = monotonicNow();
    await holder.release();
    const permit = await waiting;
    expect(monotonicNow() - releasedAt).toBeLessThan(1_000);
    expect(permit.count).toBe(1);
    // The release granted the permit and its message carried the grant: the waiter sent no script of its own.
    expect(await server.commandCalls("evalsha", "eval")).toBe(callsBefore + 1);
    const [granted] = (await server.command("ZRANGE", `${tag(name)}:sem:holders`, "0", "-1")) as string[];
    expect(await server.command("HGET", `${tag(name)}:sem:state`, `g:${granted}`)).toMatch(new RegExp(`^1 ${permit.fencingToken} `));
    await permit.release();
  });

  it("tells a grant to its waiter's provider alone: on that provider's own channel, or in the reply to a release by the same provider", async () => {
    const name = semaphoreName("own-channel");
    const channels = () => server.command("PUBSUB", "CHANNELS", "distlock:sem:waiters:*") as Promise<string[]>;
    const published = () => server.commandCalls("publish");
    const holder = await provider().semaphore(name, { permits: 1 }).acquire({ ttlMs: 60_000 });
    const waiters = provider().semaphore(name, { permits: 1 });
    const first = waiters.acquire({ ttlMs: 60_000 });
    await expect.poll(() => lineLength(name), { timeout: 10_000 }).toBe(1);
    // Only the waiting provider subscribed, to one channel of its own (not one per semaphore).
    expect(await channels()).toHaveLength(1);
    const publishedBefore = await published();
    await holder.release();
    const permit = await first;
    expect(await published()).toBe(publishedBefore + 1);
    const second = waiters.acquire({ ttlMs: 60_000 });
    await expect.poll(() => lineLength(name), { timeout: 10_000 }).toBe(1);
    await permit.release();
    // The release reply carried the grant to the waiter of its own provider: nothing was published.
    await (await second).release();
    expect(await published()).toBe(publishedBefore + 1);
  });

  it("an acquire while a waiter of the same provider waits joins the line in one script call", async () => {
    const name = semaphoreName("join-at-once");
    const holder = await provider().semaphore(name, { permits: 1 }).acquire({ ttlMs: 60_000 });
    const waiters = provider().semaphore(name, { permits: 1 });
    const first = waiters.acquire({ ttlMs: 60_000 });
    await expect.poll(() => lineLength(name), { timeout: 10_000 }).toBe(1);
    const callsBefore = await server.commandCalls("evalsha", "eval");
    const second = waiters.acquire({ ttlMs: 60_000 });
    await expect.poll(() => lineLength(name), { timeout: 10_000 }).toBe(2);
    expect(await server.commandCalls("evalsha", "eval")).toBe(callsBefore + 1);
    await holder.release();
    await (await first).release();
    await (await second).release();
    expect(await waiters.inspect()).toBeNull();
  });

  it("a waiter whose grant message was lost gets that grant from its next attempt, its lease starting again", async () => {
    const name = semaphoreName("lost-message");
    const [holderSecret, waiterSecret] = [newOwnerSecret(), newOwnerSecret()];
    const attempt = (secret: string) =>
      server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), secret, "30000", "label", "1", "1", "waiter-1", "30000", "test:channel");
    const holderToken = await attempt(holderSecret);
    // A waiter's refusal carries the fencing counter: every earlier grant's token is at most it, every later one above it.
    expect(await attempt(waiterSecret)).toEqual([0, holderToken, expect.any(Number)]);
    // Nobody listens on the waiter's channel: the release grants the permit to the head of the line, and its message is lost.
    await server.command("EVAL", SEMAPHORE_RELEASE_SCRIPT.lua, "1", tag(name), holderSecret, "test:releasing-channel");
    expect(await lineLength(name)).toBe(0);
    const grantedUntil = Number(await server.command("ZSCORE", `${tag(name)}:sem:holders`, waiterSecret));
    const token = await attempt(waiterSecret);
    expect(await server.command("HGET", `${tag(name)}:sem:state`, `g:${waiterSecret}`)).toBe(`1 ${token} label`);
    expect(Number(await server.command("ZSCORE", `${tag(name)}:sem:holders`, waiterSecret))).toBeGreaterThanOrEqual(grantedUntil);
    expect(await server.command("ZCARD", `${tag(name)}:sem:holders`)).toBe(1);
  });

  it("a waiter that gives up after its permits were granted to it gives them back, and the next in line gets them", async () => {
    const name = semaphoreName("leave-granted");
    const secrets = [newOwnerSecret(), newOwnerSecret(), newOwnerSecret()];
    const attempt = (secret: string, waiterId: string) =>
      server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), secret, "30000", "label", "1", "1", waiterId, "30000", "test:channel");
    await attempt(secrets[0] as string, "holder");
    await attempt(secrets[1] as string, "first");
    await attempt(secrets[2] as string, "second");
    await server.command("EVAL", SEMAPHORE_RELEASE_SCRIPT.lua, "1", tag(name), secrets[0] as string, "test:releasing-channel");
    expect(await server.command("ZSCORE", `${tag(name)}:sem:holders`, secrets[1] as string)).not.toBeNull();
    await server.command("EVAL", SEMAPHORE_LEAVE_SCRIPT.lua, "1", tag(name), secrets[1] as string, "first");
    expect(await server.command("ZRANGE", `${tag(name)}:sem:holders`, "0", "-1")).toEqual([secrets[2]]);
    expect(await lineLength(name)).toBe(0);
  });

  it("after contention with mixed counts and abandoned waits the free count is whole again: the idle semaphore leaves only its fence", async () => {
    const name = semaphoreName("free-count");
    const semaphores = [provider(), provider()].map((p) => p.semaphore(name, { permits: 3 }));
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        const semaphore = semaphores[worker % 2] as (typeof semaphores)[number];
        for (let round = 0; round < 15; round++) {
          const count = 1 + ((worker + round) % 2);
          // Every fifth wait is abandoned at once: before it joins the line, in line, or after a grant it has not heard of.
          const controller = new AbortController();
          const waiting = semaphore.acquire({ count, ttlMs: 30_000, signal: controller.signal });
          if ((worker + round) % 5 === 0) controller.abort(new Error("gave up"));
          const permit = await waiting.catch(() => undefined);
          await permit?.release();
        }
      }),
    );
    expect(await semaphores[0]?.inspect()).toBeNull();
    for (const suffix of ["holders", "state", "queue"]) expect(await server.command("EXISTS", `${tag(name)}:sem:${suffix}`)).toBe(0);
  });

  it("keeps the free count right when a script that drops a lapsed holder then refuses a mismatched permit count", async () => {
    const name = semaphoreName("mismatch-after-lapse");
    const secret = newOwnerSecret();
    const attempt = (permits: number, count: number, owner = newOwnerSecret()) =>
      server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), owner, "30000", "label", String(permits), String(count));
    expect(typeof (await attempt(2, 1, secret))).toBe("string");
    expect(typeof (await attempt(2, 1))).toBe("string");
    // The first holder's lease runs out: the next script drops it, even one that then refuses the caller's count.
    await server.command("ZADD", `${tag(name)}:sem:holders`, "XX", "1", secret);
    expect(await attempt(3, 1)).toEqual([2]);
    expect(await server.command("HGET", `${tag(name)}:sem:state`, "free")).toBe("1");
    expect(typeof (await attempt(2, 1))).toBe("string");
  });

  it("refuses another permit count while the line alone keeps the semaphore in use", async () => {
    const name = semaphoreName("line-keeps-count");
    const ownerSecret = newOwnerSecret();
    // A waiter queued for 2 of 2 permits behind a holder whose lease has run out keeps the count stored.
    await server.command("EVAL", SEMAPHORE_ACQUIRE_SCRIPT.lua, "1", tag(name), ownerSecret, "30000", "holder", "2", "2");
    await server.command(
      "EVAL",
      SEMAPHORE_ACQUIRE_SCRIPT.lua,
      "1",
      tag(name),
      newOwnerSecret(),
      "30000",
      "waiter",
      "2",
      "2",
      "waiter-1",
      "30000",
      "test:channel",
    );
    await server.command("ZADD", `${tag(name)}:sem:holders`, "XX", "1", ownerSecret);
    await expect(provider().semaphore(name, { permits: 3 }).tryAcquire()).rejects.toMatchObject({ code: "PERMITS_MISMATCH", storedPermits: 2 });
  });
});
