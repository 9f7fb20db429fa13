import { LockError, LockErrorCode } from "@distlock/core";
import { startTcpProxy, startZooKeeper, startZooKeeperEnsemble } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { ZooKeeperLockProvider } from "./zookeeper-lock-provider.js";

const SESSION_TIMEOUT_MS = 1000;
/** Far longer than the session: only the session can end these holds within the tests' time. */
const LONG_TTL_MS = 60_000;

const server = await startZooKeeper();
afterAll(() => server.close());

const provider = (port: number, sessionTimeoutMs = SESSION_TIMEOUT_MS) =>
  new ZooKeeperLockProvider({ url: `zookeeper://127.0.0.1:${port}/session-loss?sessionTimeoutMs=${sessionTimeoutMs}` });

function abortedAt(signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(performance.now()), { once: true }));
}

describe("holds bound by the ZooKeeper session", () => {
  it("a cut connection aborts lock.signal from the session timeout, before another session is granted the lock", async () => {
    await using proxy = await startTcpProxy(server.port);
    await using holder = provider(proxy.port);
    await using other = provider(server.port);
    const lock = await holder.acquire("cut", { ttlMs: LONG_TTL_MS });
    const aborted = abortedAt(lock.signal);
    const cutAt = performance.now();
    proxy.blackhole();
    const next = await other.acquire("cut", { ttlMs: LONG_TTL_MS, waitMs: 10_000 });
    const grantedAt = performance.now();
    expect(await aborted).toBeLessThanOrEqual(grantedAt);
    expect((await aborted) - cutAt).toBeLessThan(SESSION_TIMEOUT_MS + 500);
    expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
    expect(next.fencingToken).toBeGreaterThan(lock.fencingToken ?? 0n);
    proxy.restore();
    await next.release();
  });

  it("a dropped connection that reconnects within the session keeps the hold", async () => {
    await using proxy = await startTcpProxy(server.port);
    await using holder = provider(proxy.port);
    await using other = provider(server.port);
    const lock = await holder.acquire("reconnect", { ttlMs: LONG_TTL_MS });
    proxy.dropConnections();
    // Twice the session timeout: a hold judged lost on the disconnect alone would have aborted by now.
    const renewed = lock.renew(LONG_TTL_MS);
    await renewed;
    await new Promise((resolve) => setTimeout(resolve, 2 * SESSION_TIMEOUT_MS));
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire("reconnect")).toBeNull();
    await lock.release();
    expect(await other.inspect("reconnect")).toBeNull();
  });

  it("a process that closes its provider frees its locks at once, not at the session timeout", async () => {
    await using other = provider(server.port);
    const holder = provider(server.port, 30_000);
    await holder.acquire("closed", { ttlMs: LONG_TTL_MS });
    await holder.close();
    const lock = await other.tryAcquire("closed", { ttlMs: LONG_TTL_MS });
    expect(lock).not.toBeNull();
    await lock?.release();
  });
});

describe("holds on an ensemble", () => {
  it("survive the leader being killed: the session moves to another server and nobody else gets the lock", async () => {
    await using ensemble = await startZooKeeperEnsemble(3);
    const url = `${ensemble.url}/leader-kill?sessionTimeoutMs=4000`;
    await using holder = new ZooKeeperLockProvider({ url });
    await using other = new ZooKeeperLockProvider({ url });
    const lock = await holder.acquire("leader", { ttlMs: LONG_TTL_MS });
    const leader = await ensemble.leader();
    await leader.kill();
    await ensemble.leader();
    await lock.renew(LONG_TTL_MS);
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire("leader")).toBeNull();
    await lock.release();
    const next = await other.tryAcquire("leader");
    expect(next?.fencingToken).toBeGreaterThan(lock.fencingToken ?? 0n);
    await next?.release();
  });
});
