import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode, type Permit, type Semaphore } from "@distlock/core";
import { startRedis } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { providerPerTest } from "../../test/provider-per-test.js";
import { scriptCalls } from "../../test/script-calls.js";
import { watchedProviderPerTest } from "../../test/watched-provider.js";
import type { RedisLockProviderOptions } from "../options/redis-lock-provider-options.js";

const server = await startRedis();
afterAll(() => server.close());

// Each provider is its own process cohort (its own driver and connections), as a provider in another process would be.
const provider = providerPerTest(server.url);

const TTL = { ttlMs: 30_000 };
const semaphoreName = (label: string) => `permit-cohort:${label}:${randomUUID()}`;
const tag = (name: string) => `{distlock:${name}}`;
const lineLength = (name: string) => server.command("LLEN", `${tag(name)}:sem:queue`) as Promise<number>;

/** A provider whose semaphores count the waits core starts on them: a wait a cohort can serve is in its local line once counted. */
interface WatchedSemaphores {
  semaphore(name: string, permits: number): Semaphore;
  /** How many waits (`SemaphoreDriver.acquire`) core has started so far. */
  waits(): number;
}

const watchedProvider = watchedProviderPerTest(server.url);

function watched(options: Partial<RedisLockProviderOptions> = {}): WatchedSemaphores {
  const { provider: created, waits } = watchedProvider(options);
  return { semaphore: (name, permits) => created.semaphore(name, { permits }), waits };
}

/**
 * A one-permit grant of `name` to `here`, handed over from the server's line with a waiter of another provider left
 * behind it (so it starts a cohort): that waiter is returned too, releasing as soon as it is granted.
 */
async function cohortGrant(name: string, here: WatchedSemaphores, permits = 1, remoteCount = 1) {
  const first = await provider()
    .semaphore(name, { permits })
    .acquire({ ...TTL, count: permits });
  const grant = here.semaphore(name, permits).acquire(TTL);
  await expect.poll(() => lineLength(name)).toBe(1);
  const remoteGrants: Permit[] = [];
  const remote = provider()
    .semaphore(name, { permits })
    .acquire({ ...TTL, count: remoteCount })
    .then(async (permit) => {
      remoteGrants.push(permit);
      await permit.release();
    });
  await expect.poll(() => lineLength(name)).toBe(2);
  await first.release();
  return { holder: await grant, remote, remoteGrants };
}

/** Starts an acquire on `here` and resolves once core has started its wait (in the cohort's line, where one can serve it). */
async function waitingOn(here: WatchedSemaphores, name: string, permits = 1): Promise<{ permit: Promise<Permit> }> {
  const before = here.waits();
  const permit = here.semaphore(name, permits).acquire(TTL);
  await expect.poll(() => here.waits()).toBe(before + 1);
  // Wrapped: an async function returning the promise itself would wait for the grant.
  return { permit };
}

describe("redis permit cohorts", () => {
  it("a pass gives a fencing token above every earlier grant, also one made to another provider after the cohort's grant", async () => {
    const name = semaphoreName("tokens");
    const here = watched();
    // Two permits: the remote waiter behind the cohort's grant is granted the second one right after it.
    const { holder, remote, remoteGrants } = await cohortGrant(name, here, 2, 1);
    await remote;
    const callsBefore = await scriptCalls(server);
    const next = await waitingOn(here, name, 2);
    await holder.release();
    const passed = await next.permit;
    // The pass script alone: the acquire waited for the pass, not on the server.
    expect(await scriptCalls(server)).toBe(callsBefore + 1);
    const remoteToken = remoteGrants[0]?.fencingToken as bigint;
    expect(remoteToken).toBeGreaterThan(holder.fencingToken as bigint);
    expect(passed.fencingToken as bigint).toBeGreaterThan(remoteToken);
    const [state] = (await here.semaphore(name, 2).inspect())?.holders ?? [];
    expect(state?.fencingToken).toBe(passed.fencingToken);
    await passed.release();
    expect(await here.semaphore(name, 2).inspect()).toBeNull();
  });

  it("a pass is one script call, and the acquire it serves never joins the server's line", async () => {
    const name = semaphoreName("one-call");
    const here = watched();
    const { holder, remote } = await cohortGrant(name, here);
    const callsBefore = await scriptCalls(server);
    const next = await waitingOn(here, name);
    expect(await lineLength(name)).toBe(1);
    await holder.release();
    const passed = await next.permit;
    expect(await scriptCalls(server)).toBe(callsBefore + 1);
    expect(await lineLength(name)).toBe(1);
    await passed.release();
    await remote;
  });

  it("after localPasses passes with a waiter of another provider queued, that waiter gets the permit before the next acquire here", async () => {
    const localPasses = 3;
    const name = semaphoreName("bound");
    const here = watched({ localPasses });
    const order: string[] = [];
    const { holder, remote } = await cohortGrant(name, here);
    const remoteDone = remote.then(() => order.push("remote"));
    let current = holder;
    order.push("local-0");
    for (let i = 1; i <= localPasses; i++) {
      const next = await waitingOn(here, name);
      await current.release();
      current = await next.permit;
      order.push(`local-${i}`);
      expect(await lineLength(name)).toBe(1);
    }
    // The bound is reached: the next acquire here queues on the server, behind the remote waiter.
    const last = here.semaphore(name, 1).acquire(TTL);
    await expect.poll(() => lineLength(name)).toBe(2);
    await current.release();
    await remoteDone;
    const lastPermit = await last;
    order.push("local-last");
    expect(order).toEqual(["local-0", "local-1", "local-2", "local-3", "remote", "local-last"]);
    await lastPermit.release();
  });

  it("a cohort's grant that lapsed on the server aborts its holder's signal with LOCK_LOST at the next renewal, and the acquire waiting here is served by the server's line", async () => {
    const name = semaphoreName("lapsed-renewal");
    const here = watched();
    const ttl = { ttlMs: 900 };
    const first = await provider().semaphore(name, { permits: 1 }).acquire(TTL);
    const grant = here.semaphore(name, 1).acquire(ttl);
    await expect.poll(() => lineLength(name)).toBe(1);
    const remote = provider().semaphore(name, { permits: 1 }).acquire(ttl);
    await expect.poll(() => lineLength(name)).toBe(2);
    await first.release();
    const holder = await grant;
    const before = here.waits();
    const next = here.semaphore(name, 1).acquire(ttl);
    await expect.poll(() => here.waits()).toBe(before + 1);
    expect(await lineLength(name)).toBe(1);
    const lost = new Promise<unknown>((resolve) => holder.signal.addEventListener("abort", () => resolve(holder.signal.reason)));
    const [secret] = (await server.command("ZRANGE", `${tag(name)}:sem:holders`, "0", "0")) as string[];
    await server.command("ZADD", `${tag(name)}:sem:holders`, "XX", "1", secret as string);
    expect(LockError.is(await lost, LockErrorCode.LockLost)).toBe(true);
    // The local wait went to the server's line, behind the remote waiter, which the lapsed permit went to.
    await (await remote).release();
    const served = await next;
    expect(served.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    await served.release();
  });

  it("a release whose pass finds the cohort's grant gone rejects with LOCK_LOST, and the acquire waiting here is served by the server's line", async () => {
    const name = semaphoreName("lapsed-pass");
    const here = watched();
    const { holder, remote } = await cohortGrant(name, here);
    const next = await waitingOn(here, name);
    const [secret] = (await server.command("ZRANGE", `${tag(name)}:sem:holders`, "0", "0")) as string[];
    await server.command("ZADD", `${tag(name)}:sem:holders`, "XX", "1", secret as string);
    const error = await holder.release().catch((caught: unknown) => caught);
    expect(LockError.is(error, LockErrorCode.LockLost)).toBe(true);
    expect(holder.signal.aborted).toBe(true);
    await remote;
    const served = await next.permit;
    expect(served.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    await served.release();
    expect(await here.semaphore(name, 1).inspect()).toBeNull();
  });

  it("never passes ahead of a waiter for several permits first in the server's line: the release gives the permit back", async () => {
    const name = semaphoreName("larger-first");
    const here = watched();
    const { holder, remote, remoteGrants } = await cohortGrant(name, here, 2, 2);
    const next = await waitingOn(here, name, 2);
    await holder.release();
    await remote;
    const served = await next.permit;
    expect(served.fencingToken as bigint).toBeGreaterThan(remoteGrants[0]?.fencingToken as bigint);
    await served.release();
  });

  it("localPasses 0 makes no cohort: every acquire waits in the server's line", async () => {
    const name = semaphoreName("off");
    const here = watched({ localPasses: 0 });
    const { holder, remote } = await cohortGrant(name, here);
    const next = here.semaphore(name, 1).acquire(TTL);
    await expect.poll(() => lineLength(name)).toBe(2);
    await holder.release();
    await remote;
    await (await next).release();
  });
});
