import { fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout } from "node:timers/promises";
import { describeLockProvider } from "@distlock/conformance";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import type { ManagedServer } from "@distlock/test-servers";
import { afterAll, expect, it } from "vitest";
import { SqlLockProvider } from "../src/sql-lock-provider.js";

/** A test server as the session tests drive it (a `ManagedServer` of @distlock/test-servers). */
type SessionTestServer = Pick<ManagedServer, "pause" | "resume" | "stop" | "start">;

/** The conformance suite in session mode on `url`: fencing, FIFO, across processes, with pause/resume faults. */
export function describeSessionConformance(name: string, url: string, server: SessionTestServer): void {
  describeLockProvider({
    name,
    create: () => new SqlLockProvider({ url }),
    capabilities: { fencing: true, fifo: true, listing: false, semaphore: true },
    workerUrl: url,
    crossProcess: true,
    // A session lock belongs to its connection: another process cannot join the hold (see the README).
    reentryAcrossProcesses: false,
    faults: { pause: () => server.pause(), resume: () => server.resume() },
    // 1 s: MySQL's wait_timeout, the server-side bound of a lease, is whole seconds.
    ttlMs: 1000,
    marginMs: 1000,
  });
}

export const uniqueKey = (name: string) => `${name}-${crypto.randomUUID()}`;

/** Resolves once the server shows a waiter queued on `lockKey` (inspect's `waiters`); there is no event for it. */
export async function queuedOnServer(provider: Pick<SqlLockProvider, "inspect">, lockKey: string): Promise<void> {
  const deadline = monotonicNow() + 5_000;
  while (((await provider.inspect(lockKey))?.waiters ?? 0) === 0) {
    if (monotonicNow() > deadline) throw new Error(`no waiter on ${lockKey} within 5 s`);
    await setTimeout(20);
  }
}

/** Blocks the event loop, as a GC pause or SIGSTOP would: no timer can run meanwhile. */
function freeze(ms: number): void {
  const until = monotonicNow() + ms;
  while (monotonicNow() < until) {}
}

export function abortedWith(signal: AbortSignal): Promise<unknown> {
  return signal.aborted ? Promise.resolve(signal.reason) : once(signal, "abort").then(() => signal.reason);
}

/** Providers on `url` that are closed after the file's tests. */
export function sessionProviders(url: string): (label?: string) => SqlLockProvider {
  const providers: SqlLockProvider[] = [];
  afterAll(() => Promise.allSettled(providers.map((provider) => provider.close())));
  return (label = "session-test") => {
    const created = new SqlLockProvider({ url, holderLabel: `${label}-${providers.length}` });
    providers.push(created);
    return created;
  };
}

/** A child process that holds `lockKey` until it is killed or stopped; `held` resolves with its token. */
export function spawnHolder(url: string, lockKey: string, ttlMs: number) {
  const child = fork(new URL("./session-holder-worker.mjs", import.meta.url), [url, lockKey, String(ttlMs)], { stdio: "ignore" });
  const held = once(child, "message").then(([message]) => BigInt((message as { fencingToken: string }).fencingToken));
  return { child, held };
}

export interface SessionLossSetup {
  readonly url: string;
  readonly server: SessionTestServer;
  readonly provider: (label?: string) => SqlLockProvider;
  /** Ends the server session holding `lockKey` from outside (pg_terminate_backend, KILL). */
  endHoldingSession(lockKey: string): Promise<void>;
  /** How long past its TTL a frozen holder's key may stay taken (the server's idle limit rounding). */
  readonly idleRoundingMs: number;
}

/** What every session dialect must do when a holder's session, process or server goes away; registers `it`s. */
export function sessionLossTests(setup: SessionLossSetup): void {
  const { url, server, provider } = setup;

  it("aborts lock.signal at once when the holding session is ended, and a new owner gets a higher token", async () => {
    const lockKey = uniqueKey("ended");
    const lock = await provider().acquire(lockKey, { ttlMs: 60_000 });
    const started = monotonicNow();
    await setup.endHoldingSession(lockKey);
    expect(LockError.is(await abortedWith(lock.signal), LockErrorCode.LockLost)).toBe(true);
    expect(monotonicNow() - started).toBeLessThan(1_000);
    const next = await provider().acquire(lockKey, { waitMs: 1_000 });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
    await expect(lock.release()).rejects.toMatchObject({ code: LockErrorCode.LockLost });
    await next.release();
  });

  // A CI run failed once so: the server's idle limit ended a session whose leases had run out just as an acquire picked it.
  it("an acquire sent on a session the server has just ended is taken on another session (nothing of it was held there)", async () => {
    const holding = provider();
    const doomedKey = uniqueKey("doomed");
    const doomed = await holding.acquire(doomedKey, { ttlMs: 60_000 });
    await setup.endHoldingSession(doomedKey);
    // Sent at once: this process has not read yet that the session ended, so it picks that session again.
    const next = await holding.acquire(uniqueKey("after-end"), { ttlMs: 60_000, waitMs: 0 });
    expect(typeof next.fencingToken).toBe("bigint");
    expect(LockError.is(await abortedWith(doomed.signal), LockErrorCode.LockLost)).toBe(true);
    await next.release();
  });

  // Found by the fault matrix's holder-sigstop row: a critical section whose timer expired before the lease did runs
  // first after a pause, and must see the lease gone although the deadline timer has not run yet.
  it("lock.signal, read before a pause, reads as aborted once the lease ran out, before any timer could run", async () => {
    const lock = await provider().acquire(uniqueKey("frozen"), { ttlMs: 1_000, autoRenew: false });
    expect(lock.signal.aborted).toBe(false);
    freeze(1_100);
    expect(lock.signal.aborted).toBe(true);
    expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
    await lock.release().catch(() => undefined);
  });

  it("frees the key of a lock that is not renewed once its TTL passed, while its session lives on (kept busy by another lock's renewals)", async () => {
    const holding = provider();
    const busy = await holding.acquire(uniqueKey("busy"), { ttlMs: 1_000 });
    const lockKey = uniqueKey("lapsed");
    const lapsing = await holding.acquire(lockKey, { ttlMs: 1_000, autoRenew: false });
    const acquiredAt = monotonicNow();
    const next = await provider().acquire(lockKey, { waitMs: 5_000 });
    expect(monotonicNow() - acquiredAt).toBeLessThan(2_000);
    expect(next.fencingToken as bigint).toBeGreaterThan(lapsing.fencingToken as bigint);
    expect(lapsing.signal.aborted).toBe(true);
    expect(busy.signal.aborted).toBe(false);
    await Promise.all([next.release(), busy.release()]);
  });

  it("frees the key of a SIGKILLed holder process as soon as the server sees its socket close", async () => {
    const lockKey = uniqueKey("sigkill");
    const { child, held } = spawnHolder(url, lockKey, 60_000);
    const token = await held;
    const waiter = provider();
    expect(await waiter.tryAcquire(lockKey)).toBeNull();
    child.kill("SIGKILL");
    const started = monotonicNow();
    const next = await waiter.acquire(lockKey, { waitMs: 5_000 });
    expect(monotonicNow() - started).toBeLessThan(1_000);
    expect(next.fencingToken as bigint).toBeGreaterThan(token);
    await next.release();
  });

  it("frees the key of a frozen (SIGSTOPped) holder within its TTL: the server ends the idle session", async () => {
    const lockKey = uniqueKey("sigstop");
    const ttlMs = 1_000;
    const { child, held } = spawnHolder(url, lockKey, ttlMs);
    const token = await held;
    child.kill("SIGSTOP");
    const started = monotonicNow();
    try {
      const next = await provider().acquire(lockKey, { waitMs: ttlMs * 4 });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + setup.idleRoundingMs + 1_000);
      expect(next.fencingToken as bigint).toBeGreaterThan(token);
      await next.release();
    } finally {
      child.kill("SIGKILL");
    }
  });

  // Found by the fault matrix's holder-sigstop row: a waiter granted while its process was frozen read the grant after
  // the server's idle limit had ended its session, dated the lease from that read and wrote under a lock it did not have.
  it("a grant read after the idle limit ended its session is not handed out: the lock acquire returns is held on the server", async () => {
    const lockKey = uniqueKey("late-grant");
    const ttlMs = 1_000;
    const { child, held } = spawnHolder(url, lockKey, 60_000);
    const token = await held;
    const waiter = provider();
    const waiting = waiter.acquire(lockKey, { ttlMs, waitMs: 20_000 });
    await queuedOnServer(waiter, lockKey);
    // The server grants the key to the waiting session, whose idle limit then ends it; this process reads the grant after.
    child.kill("SIGKILL");
    freeze(ttlMs + setup.idleRoundingMs + 1_500);
    const lock = await waiting;
    expect(lock.signal.aborted).toBe(false);
    expect(await waiter.inspect(lockKey)).toMatchObject({ fencingToken: lock.fencingToken, holdCount: 1 });
    expect(lock.fencingToken as bigint).toBeGreaterThan(token);
    await lock.release();
  });

  it("a waiter granted after waiting longer than half its TTL still gets most of its lease (a ping dates it)", async () => {
    const lockKey = uniqueKey("long-wait");
    const ttlMs = 1_000;
    const { child, held } = spawnHolder(url, lockKey, 60_000);
    await held;
    const waiter = provider();
    const waiting = waiter.acquire(lockKey, { ttlMs, waitMs: 20_000 });
    await queuedOnServer(waiter, lockKey);
    freeze(ttlMs * 0.7);
    child.kill("SIGKILL");
    const lock = await waiting;
    expect(lock.remainingMs()).toBeGreaterThan(ttlMs * 0.7);
    await lock.release();
  });

  it("tokens strictly increase per key across processes", async () => {
    const lockKey = uniqueKey("tokens");
    const local = provider();
    const tokens: bigint[] = [];
    for (let round = 0; round < 3; round++) {
      const mine = await local.acquire(lockKey, { waitMs: 5_000 });
      tokens.push(mine.fencingToken as bigint);
      await mine.release();
      const { child, held } = spawnHolder(url, lockKey, 60_000);
      tokens.push(await held);
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i] as bigint).toBeGreaterThan(tokens[i - 1] as bigint);
  });

  it("aborts lock.signal at once when the server restarts, and the key is free afterwards with a higher token", async () => {
    const lockKey = uniqueKey("restart");
    const lock = await provider().acquire(lockKey, { ttlMs: 60_000 });
    const lost = abortedWith(lock.signal);
    await server.stop();
    expect(LockError.is(await lost, LockErrorCode.LockLost)).toBe(true);
    await server.start();
    const next = await provider().acquire(lockKey, { waitMs: 5_000 });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
    await next.release();
  });
}
