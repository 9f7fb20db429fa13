import { randomUUID } from "node:crypto";
import { type CohortGrant, comeBackWhileRemoteWaits, passAlong, takeCohortTurn } from "@distlock/conformance";
import { type AcquireOptions, type Lock, LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { startRedis } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { leaseLeftMs, lockRecord, shownFree } from "../test/lock-records.js";
import { providerPerTest } from "../test/provider-per-test.js";
import { watchedProviderPerTest } from "../test/watched-provider.js";
import { TOKEN_BLOCK } from "./scripts/lua-functions.js";

const server = await startRedis();
afterAll(() => server.close());

// Each provider is its own process cohort (its own driver and connections), as a provider in another process would be.
const provider = providerPerTest(server.url);
const watchedProvider = watchedProviderPerTest(server.url);

const TTL = { ttlMs: 30_000 };
const key = (label: string) => `cohort:${label}:${randomUUID()}`;
const tag = (k: string) => `{distlock:${k}}`;
const queueLength = (k: string) => server.command("LLEN", `${tag(k)}:queue`) as Promise<number>;
const scriptCalls = () => server.commandCalls("evalsha", "eval");

/**
 * `k` held by `side`, handed to it from the server's line (behind a holder elsewhere), so that the grant reserved a
 * token block: a grant of a free key with an empty line reserves none, and its cohort passes nothing without a call.
 */
async function heldFromTheLine(k: string, side: LockProvider, options: AcquireOptions = TTL): Promise<Lock> {
  const first = await provider().acquire(k, TTL);
  const holder = side.acquire(k, options);
  await expect.poll(() => queueLength(k)).toBe(1);
  await first.release();
  return holder;
}

describe("redis process cohorts", () => {
  it("a release passes the key to acquirers of its own provider with no server call, at most localPasses times in a row, with the next tokens of the grant's block; then the line elsewhere gets it", async () => {
    const here = watchedProvider({ localPasses: 2 });
    const k = key("bound");
    const grants: CohortGrant[] = [];
    const holder = await heldFromTheLine(k, here.provider);
    const remote = takeCohortTurn(grants, "remote", provider(), k, TTL);
    await expect.poll(() => queueLength(k)).toBe(1);
    const locals = ["local-1", "local-2", "local-3"].map((name) => takeCohortTurn(grants, name, here.provider, k, TTL));
    // Each local acquire is refused once on the server; the two the cohort may still pass the key to wait in it, the
    // third queues on the server behind the remote waiter.
    await expect.poll(() => here.waits()).toBe(4);
    await expect.poll(() => queueLength(k)).toBe(2);
    await holder.release();
    await Promise.all([remote, ...locals]);
    expect(grants.map((g) => g.name)).toEqual(["local-1", "local-2", "remote", "local-3"]);
    const first = holder.fencingToken as bigint;
    expect(grants[0]?.token).toBe(first + 1n);
    expect(grants[1]?.token).toBe(first + 2n);
    expect(grants[2]?.token as bigint).toBeGreaterThan(first + BigInt(TOKEN_BLOCK));
    expect(grants[3]?.token as bigint).toBeGreaterThan(grants[2]?.token as bigint);
    // Each release gave the rest of its block back: the free record keeps the last token issued.
    expect(await lockRecord(server, k)).toEqual({ free: true, token: String(grants[3]?.token) });
    expect(await server.command("EXISTS", `${tag(k)}:queue`)).toBe(0);
  });

  it("a worker that comes straight back takes the key again with no server call while a waiter elsewhere is queued, which gets it after localPasses such passes", async () => {
    const localPasses = 3;
    const here = provider({ localPasses });
    const k = key("linger");
    const { names, tokens } = await comeBackWhileRemoteWaits(
      here,
      () => provider(),
      k,
      TTL,
      (n) => expect.poll(() => queueLength(k)).toBe(n),
    );
    expect(names).toEqual([...Array<string>(localPasses + 1).fill("local"), "remote"]);
    expect(tokens).toEqual(tokens.map((_, i) => (tokens[0] as bigint) + BigInt(i)));
  });

  it("a hold lost on the server during a run of passes aborts the current holder's signal with LOCK_LOST", async () => {
    const here = watchedProvider({ localPasses: 100 });
    const k = key("lost");
    const ttl = { ttlMs: 900 };
    const lock = await passAlong(here.provider, await heldFromTheLine(k, here.provider, ttl), ttl, 5, (n) => expect.poll(() => here.waits()).toBe(n));
    const inspected = await here.provider.inspect(k);
    // The server shows the cohort's hold: the first holder's token, with the passes made on top of it here.
    expect(inspected?.fencingToken).toBe((lock.fencingToken as bigint) - 5n);
    await server.command("DEL", `${tag(k)}:lock`);
    const lost = await new Promise<unknown>((resolve) => lock.signal.addEventListener("abort", () => resolve(lock.signal.reason), { once: true }));
    expect(LockError.is(lost, LockErrorCode.LockLost), String(lost)).toBe(true);
    expect(await here.provider.tryAcquire(k, ttl)).not.toBeNull();
  });

  it("a cohort's holder renews the cohort's hold on the server, and its renewal fails with LOCK_LOST once the server dropped it", async () => {
    const here = watchedProvider({ localPasses: 4 });
    const k = key("renew");
    const holder = await heldFromTheLine(k, here.provider, { ttlMs: 2_000 });
    const passed = await passAlong(here.provider, holder, { ttlMs: 2_000 }, 1, (n) => expect.poll(() => here.waits()).toBe(n));
    expect(passed.fencingToken).toBe((holder.fencingToken as bigint) + 1n);
    await passed.renew(5_000);
    expect(await leaseLeftMs(server, k)).toBeGreaterThan(2_000);
    await server.command("DEL", `${tag(k)}:lock`);
    const error = await passed.renew().catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.LockLost), String(error)).toBe(true);
    expect(passed.signal.aborted).toBe(true);
  });

  it("a cohort whose server lease ran out unreleased leaves every token it passed below the next grant's", async () => {
    const here = watchedProvider({ localPasses: 4 });
    const k = key("expired");
    const short = { ttlMs: 500, autoRenew: false };
    const holder = await heldFromTheLine(k, here.provider, short);
    const passed = await passAlong(here.provider, holder, short, 1, (n) => expect.poll(() => here.waits()).toBe(n));
    expect(passed.fencingToken).toBe((holder.fencingToken as bigint) + 1n);
    await expect.poll(() => shownFree(server, k), { timeout: 2_000 }).toBe(true);
    const later = await provider().acquire(k, TTL);
    expect(later.fencingToken as bigint).toBeGreaterThan(passed.fencingToken as bigint);
    expect(later.fencingToken as bigint).toBeGreaterThan((holder.fencingToken as bigint) + BigInt(TOKEN_BLOCK));
    await later.release();
    await expect(passed.release()).rejects.toMatchObject({ code: LockErrorCode.LockLost });
  });

  it("a grant through the line is marked as one that may use a token block and its release gives the rest back; a free key taken with an empty line is not", async () => {
    const k = key("block");
    const free = await provider().acquire(k, TTL);
    expect(await lockRecord(server, k)).toMatchObject({ free: false, token: String(free.fencingToken), label: expect.stringMatching(/^- /) });
    await free.release();
    expect(await lockRecord(server, k)).toEqual({ free: true, token: String(free.fencingToken) });
    const fromLine = await heldFromTheLine(k, provider());
    expect(await lockRecord(server, k)).toMatchObject({ free: false, token: String(fromLine.fencingToken), label: expect.stringMatching(/^\+/) });
    await fromLine.release();
    expect(await lockRecord(server, k)).toEqual({ free: true, token: String(fromLine.fencingToken) });
  });

  it("with localPasses 0 the line stays strictly first come, first served across providers", async () => {
    const [here, elsewhere] = [provider({ localPasses: 0 }), provider()];
    const k = key("strict");
    const grants: CohortGrant[] = [];
    const holder = await here.acquire(k, TTL);
    const turns = [takeCohortTurn(grants, "remote", elsewhere, k, TTL)];
    await expect.poll(() => queueLength(k)).toBe(1);
    for (const [i, name] of ["local-1", "local-2"].entries()) {
      turns.push(takeCohortTurn(grants, name, here, k, TTL));
      await expect.poll(() => queueLength(k)).toBe(i + 2);
    }
    await holder.release();
    await Promise.all(turns);
    expect(grants.map((g) => g.name)).toEqual(["remote", "local-1", "local-2"]);
  });

  it("a waiter asking another ttl than the cohort's is passed the key on the server, under its own owner", async () => {
    const here = provider({ localPasses: 4 });
    const k = key("own");
    const holder = await here.acquire(k, TTL);
    const waiting = here.acquire(k, { ttlMs: 2_000 });
    await expect.poll(() => queueLength(k)).toBe(1);
    const before = await scriptCalls();
    await holder.release();
    const lock = await waiting;
    expect(await scriptCalls()).toBe(before + 1);
    expect(lock.fencingToken as bigint).toBeGreaterThan(holder.fencingToken as bigint);
    expect(await leaseLeftMs(server, k)).toBeLessThanOrEqual(2_000);
    await server.command("DEL", `${tag(k)}:lock`);
    const error = await lock.renew().catch((e: unknown) => e);
    expect(LockError.is(error, LockErrorCode.LockLost), String(error)).toBe(true);
  });
});
