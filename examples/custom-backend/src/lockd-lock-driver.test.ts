import { LockError, LockErrorCode, type LockProvider, type Semaphore } from "@distlock/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LockdLockProvider, startLockdServer } from "./index.js";

const server = await startLockdServer();
afterAll(() => server.stop());

const providers: LockProvider[] = [];
afterEach(async () => {
  server.resume();
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

function provider(url = server.url, commandTimeoutMs = 300): LockProvider {
  const created = new LockdLockProvider({ url, commandTimeoutMs, connectTimeoutMs: 300 });
  providers.push(created);
  return created;
}

function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Resolves once the server shows `count` waiters in the semaphore's line (asked again right after each answer). */
async function queued(semaphore: Semaphore, count: number): Promise<void> {
  while (((await semaphore.inspect())?.waiters ?? 0) < count) await new Promise((resolve) => setImmediate(resolve));
}

describe("lockd driver", () => {
  it("a call to a paused server fails with BACKEND_UNAVAILABLE after commandTimeoutMs, and the same connection works once it resumes", async () => {
    const locks = provider();
    const lock = await locks.acquire("paused", { ttlMs: 60_000 });
    server.pause();
    const started = performance.now();
    const error = await failure(locks.inspect("paused"));
    expect(LockError.is(error, LockErrorCode.BackendUnavailable)).toBe(true);
    expect((error as Error).message).toContain("commandTimeoutMs");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    server.resume();
    expect(await locks.inspect("paused")).toMatchObject({ holder: lock.holder, holdCount: 1 });
    await lock.release();
  });

  it("an aborted semaphore wait rejects with its reason within commandTimeoutMs even while the server is paused, and leaves no place in line", async () => {
    const name = `paused-wait-${crypto.randomUUID()}`;
    const holding = provider().semaphore(name, { permits: 1 });
    const permit = await holding.acquire({ ttlMs: 60_000 });
    const waiting = provider().semaphore(name, { permits: 1 });
    const controller = new AbortController();
    const wait = failure(waiting.acquire({ signal: controller.signal }));
    await queued(holding, 1);
    server.pause();
    const reason = new Error("gave up");
    const abortedAt = performance.now();
    controller.abort(reason);
    expect(await wait).toBe(reason);
    // The take-back could not be confirmed, so the waiter's socket was dropped: the server forgets its place with it.
    expect(performance.now() - abortedAt).toBeLessThan(300 + 1_000);
    server.resume();
    // On resuming, the server may answer this inspect before it reads the dropped socket's close.
    await expect.poll(async () => (await holding.inspect())?.waiters, { timeout: 5_000 }).toBe(0);
    expect(await holding.inspect()).toMatchObject({ inUse: 1, waiters: 0 });
    await permit.release();
  });

  it("reconnects on the next call after the connection is lost (server restarted on the same port, with nothing held)", async () => {
    const first = await startLockdServer();
    const port = Number(new URL(first.url.replace("lockd:", "http:")).port);
    const locks = provider(first.url);
    expect((await locks.tryAcquire("restart", { ttlMs: 60_000 }))?.fencingToken).toBe(1n);
    await first.stop();
    expect(LockError.is(await failure(locks.inspect("restart")), LockErrorCode.BackendUnavailable)).toBe(true);
    const second = await startLockdServer({ port });
    try {
      expect(await locks.inspect("restart")).toBeNull();
      expect((await locks.tryAcquire("restart", { ttlMs: 60_000 }))?.holdCount).toBe(1);
    } finally {
      await locks.close();
      await second.stop();
    }
  });
});
