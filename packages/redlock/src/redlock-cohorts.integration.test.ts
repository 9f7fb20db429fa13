import { randomUUID } from "node:crypto";
import { type CohortGrant, comeBackWhileRemoteWaits, countingWaits, passAlong, takeCohortTurn } from "@distlock/conformance";
import { type AcquireOptions, type Lock, LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { DriverLockProvider } from "@distlock/core/driver";
import { DRIFT_FACTOR, DRIFT_FLOOR_MS, monotonicNow } from "@distlock/core/internal";
import { TOKEN_BLOCK } from "@distlock/redis/internal";
import { startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRedlockLockDriver } from "./create-redlock-lock-driver.js";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { resolveRedlockLockOptions } from "./options/resolve-redlock-lock-options.js";

const group = await startRedisGroup(5);
afterAll(() => group.close());

/** A provider and how many waits core started on its driver (`countingWaits`): each counted one is in a line. */
interface WatchedProvider {
  readonly provider: LockProvider;
  waits(): number;
}

// Each provider is its own process cohort (its own driver and connections), as a provider in another process would be.
const providers: LockProvider[] = [];
afterEach(async () => {
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function watched(options: Partial<RedlockLockProviderOptions> = {}): WatchedProvider {
  const { driver, waits } = countingWaits(createRedlockLockDriver(resolveRedlockLockOptions({ url: group.url, waiterLeaseMs: 60_000, ...options })));
  const provider = new DriverLockProvider(driver);
  providers.push(provider);
  return { provider, waits };
}

const provider = (options: Partial<RedlockLockProviderOptions> = {}) => watched(options).provider;

const TTL = { ttlMs: 30_000 };
const key = (label: string) => `cohort:${label}:${randomUUID()}`;
const tag = (k: string) => `{distlock-redlock:${k}}`;
const onEveryNode = (command: (server: (typeof group.servers)[number]) => Promise<unknown>) => Promise.all(group.servers.map(command));
const queueLengths = (k: string) => onEveryNode((s) => s.command("ZCARD", `${tag(k)}:queue`));
const fences = (k: string) => onEveryNode((s) => s.command("GET", `${tag(k)}:fence`));
const everyNode = <T>(value: T) => group.servers.map(() => value);

/** `k` held by `side`, granted from the nodes' queues (behind a holder elsewhere), so that the grant reserved a token block. */
async function heldFromTheQueues(k: string, side: LockProvider, options: AcquireOptions = TTL): Promise<Lock> {
  const first = await provider().acquire(k, TTL);
  const holder = side.acquire(k, options);
  await expect.poll(() => queueLengths(k)).toEqual(everyNode(1));
  await first.release();
  return holder;
}

describe("redlock process cohorts", () => {
  it("a free key taken with empty queues reserves no block; a grant from the queues reserves one on every node and its release gives the rest back", async () => {
    const k = key("block");
    const free = await provider().acquire(k, TTL);
    expect(await fences(k)).toEqual(everyNode(String(free.fencingToken)));
    await free.release();
    const fromQueues = await heldFromTheQueues(k, provider());
    expect(await fences(k)).toEqual(everyNode(String((fromQueues.fencingToken as bigint) + BigInt(TOKEN_BLOCK))));
    await fromQueues.release();
    expect(await fences(k)).toEqual(everyNode(String(fromQueues.fencingToken)));
  });

  it("a release passes the key to acquirers of its own provider with no server call, at most localPasses times in a row, with tokens T + 1, T + 2; then the waiter elsewhere is granted above them", async () => {
    const here = watched({ localPasses: 2 });
    const k = key("bound");
    const grants: CohortGrant[] = [];
    const holder = await heldFromTheQueues(k, here.provider);
    const remote = takeCohortTurn(grants, "remote", provider(), k, TTL);
    await expect.poll(() => queueLengths(k)).toEqual(everyNode(1));
    const locals = ["local-1", "local-2", "local-3"].map((name) => takeCohortTurn(grants, name, here.provider, k, TTL));
    // The two the cohort may still pass the key to wait in it; the third queues on the nodes behind the remote waiter.
    await expect.poll(() => queueLengths(k)).toEqual(everyNode(2));
    expect(here.waits()).toBe(4);
    const calls = () => Promise.all(group.servers.map((s) => s.commandCalls("evalsha", "eval")));
    const before = await calls();
    await holder.release();
    await Promise.all([remote, ...locals]);
    expect(grants.map((g) => g.name)).toEqual(["local-1", "local-2", "remote", "local-3"]);
    const first = holder.fencingToken as bigint;
    expect(grants.slice(0, 2).map((g) => g.token)).toEqual([first + 1n, first + 2n]);
    expect(grants[2]?.token as bigint).toBeGreaterThan(first + 2n);
    expect(grants[3]?.token as bigint).toBeGreaterThan(grants[2]?.token as bigint);
    // Each give-back lowered the counters to the last token passed; the last one left them at the last token issued.
    expect(await fences(k)).toEqual(everyNode(String(grants[3]?.token)));
    expect(await onEveryNode((s) => s.command("EXISTS", `${tag(k)}:lock`, `${tag(k)}:queue`))).toEqual(everyNode(0));
    // The two local passes cost no call: what each node ran is the give-back and the remote's and local-3's attempt and
    // release (9 if the passes had each been an attempt and a release).
    expect((await calls()).map((count, i) => count - (before[i] as number))).toEqual(everyNode(5));
  });

  it("a worker that comes straight back takes the key again with no server call while a waiter elsewhere is queued, which is granted after localPasses such passes", async () => {
    const localPasses = 3;
    const here = provider({ localPasses });
    const k = key("linger");
    const { names, tokens } = await comeBackWhileRemoteWaits(
      here,
      () => provider(),
      k,
      TTL,
      (n) => expect.poll(() => queueLengths(k)).toEqual(everyNode(n)),
    );
    expect(names).toEqual([...Array<string>(localPasses + 1).fill("local"), "remote"]);
    expect(tokens).toEqual(tokens.map((_, i) => (tokens[0] as bigint) + BigInt(i)));
  });

  it("a pass carries the quorum hold's validity (from its grant's fan-out), and past that deadline the release passes nothing: the waiter is granted by the nodes above the whole block", async () => {
    const here = watched({ localPasses: 16 });
    const k = key("validity");
    const short = { ttlMs: 600, autoRenew: false };
    const first = await provider().acquire(k, TTL);
    const holding = here.provider.acquire(k, short);
    await expect.poll(() => queueLengths(k)).toEqual(everyNode(1));
    await first.release();
    const holder = await holding;
    const grantedBy = monotonicNow();
    const passed = await passAlong(here.provider, holder, short, 1, (n) => expect.poll(() => here.waits()).toBe(n));
    expect(passed.fencingToken).toBe((holder.fencingToken as bigint) + 1n);
    // The same lease: the cohort's runs from its grant's fan-out, the holder's from the wait's attempt, begun just before.
    expect(passed.validUntil - holder.validUntil).toBeGreaterThanOrEqual(0);
    expect(passed.validUntil - holder.validUntil).toBeLessThan(5);
    expect(passed.validUntil).toBeLessThanOrEqual(grantedBy + short.ttlMs - (short.ttlMs * DRIFT_FACTOR + DRIFT_FLOOR_MS));
    // Waits in the cohort; at the hold's deadline it goes to the nodes' queues, which grant it once the lease ran out.
    const after = await here.provider.acquire(k, short);
    expect(monotonicNow()).toBeGreaterThanOrEqual(passed.validUntil);
    expect(here.waits()).toBe(3);
    // The lease ran out unreleased: the counters kept the whole block, so the next grant is above every token passed.
    expect(after.fencingToken as bigint).toBeGreaterThan((holder.fencingToken as bigint) + BigInt(TOKEN_BLOCK));
    await expect(passed.release()).rejects.toMatchObject({ code: LockErrorCode.LockLost });
    await after.release();
  });

  it("a cohort's holder renews the cohort's hold on a majority, and once the key is deleted on a majority its signal aborts with LOCK_LOST", async () => {
    const here = watched({ localPasses: 100 });
    const k = key("lost");
    const ttl = { ttlMs: 900 };
    const lock = await passAlong(here.provider, await heldFromTheQueues(k, here.provider, ttl), ttl, 3, (n) => expect.poll(() => here.waits()).toBe(n));
    await lock.renew(5_000);
    const ttls = await onEveryNode((s) => s.command("PTTL", `${tag(k)}:lock`));
    expect(ttls.every((left) => Number(left) > 900)).toBe(true);
    // The nodes show the cohort's hold: the first holder's token, with the passes made on top of it here.
    expect((await here.provider.inspect(k))?.fencingToken).toBe((lock.fencingToken as bigint) - 3n);
    await Promise.all(group.servers.slice(0, 3).map((s) => s.command("DEL", `${tag(k)}:lock`)));
    const error = await lock.renew().catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.LockLost), String(error)).toBe(true);
    expect(lock.signal.aborted).toBe(true);
    expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
  });

  it("the watchdog's refused renewal aborts the current holder's signal with LOCK_LOST", async () => {
    const here = watched({ localPasses: 100 });
    const k = key("watchdog");
    const ttl = { ttlMs: 600 };
    const lock = await passAlong(here.provider, await heldFromTheQueues(k, here.provider, ttl), ttl, 1, (n) => expect.poll(() => here.waits()).toBe(n));
    await Promise.all(group.servers.slice(2).map((s) => s.command("DEL", `${tag(k)}:lock`)));
    const lost = await new Promise<unknown>((resolve) => lock.signal.addEventListener("abort", () => resolve(lock.signal.reason), { once: true }));
    expect(LockError.is(lost, LockErrorCode.LockLost), String(lost)).toBe(true);
    expect(await here.provider.tryAcquire(k, ttl)).not.toBeNull();
  });

  it("an explicit owner waits in the nodes' queues, not in the cohort", async () => {
    const here = watched({ localPasses: 4 });
    const k = key("owner");
    const holder = await heldFromTheQueues(k, here.provider);
    const owned = here.provider.acquire(k, { ...TTL, owner: `owner-${randomUUID()}` });
    await expect.poll(() => queueLengths(k)).toEqual(everyNode(1));
    await holder.release();
    const lock = await owned;
    expect(lock.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    expect(await fences(k)).toEqual(everyNode(String(lock.fencingToken)));
    await lock.release();
  });

  it("with localPasses 0 the queues stay strictly first come, first served across providers", async () => {
    const [here, elsewhere] = [provider({ localPasses: 0 }), provider()];
    const k = key("strict");
    const grants: CohortGrant[] = [];
    const holder = await heldFromTheQueues(k, here);
    const turns = [takeCohortTurn(grants, "remote", elsewhere, k, TTL)];
    await expect.poll(() => queueLengths(k)).toEqual(everyNode(1));
    for (const [i, name] of ["local-1", "local-2"].entries()) {
      turns.push(takeCohortTurn(grants, name, here, k, TTL));
      await expect.poll(() => queueLengths(k)).toEqual(everyNode(i + 2));
    }
    await holder.release();
    await Promise.all(turns);
    expect(grants.map((g) => g.name)).toEqual(["remote", "local-1", "local-2"]);
  });
});
