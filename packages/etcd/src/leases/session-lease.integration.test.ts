import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode, runAsLockOwner } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcdWithClient } from "../../test/etcd-with-client.js";
import { untilQueueLength } from "../../test/queue-length.js";
import { EtcdLockProvider } from "../etcd-lock-provider.js";

const SESSION_TTL_MS = 3000;

const { server, raw } = await startEtcdWithClient();

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

/** The lease a member key of `key` is attached to. */
async function leaseOf(key: string): Promise<string> {
  const member = (await raw.getAll().prefix(`distlock/${key}/`).exec()).kvs[0];
  if (member === undefined) throw new Error(`no member key under distlock/${key}/`);
  return member.lease;
}

describe("the shared session lease", () => {
  const providers: EtcdLockProvider[] = [];
  afterEach(async () => {
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  function provider(): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts: server.endpoints, sessionTtlMs: SESSION_TTL_MS });
    providers.push(locks);
    return locks;
  }

  it("holds whose TTL is the session TTL share one lease; other TTLs get their own", async () => {
    const locks = provider();
    const [a, b, c] = [`session-${randomUUID()}`, `session-${randomUUID()}`, `session-${randomUUID()}`];
    await locks.acquire(a, { ttlMs: SESSION_TTL_MS });
    await locks.acquire(b, { ttlMs: SESSION_TTL_MS });
    await locks.acquire(c, { ttlMs: SESSION_TTL_MS * 2 });
    expect(await leaseOf(a)).toBe(await leaseOf(b));
    expect(await leaseOf(c)).not.toBe(await leaseOf(a));
  });

  it("revoking the session lease aborts the signal of every hold on it with LOCK_LOST, within a renewal interval", async () => {
    const locks = provider();
    const keys = [`session-${randomUUID()}`, `session-${randomUUID()}`];
    const holds = await Promise.all(keys.map((key) => locks.acquire(key, { ttlMs: SESSION_TTL_MS })));
    const revokedAt = monotonicNow();
    await raw.leaseClient.leaseRevoke({ ID: await leaseOf(keys[0] as string) });
    const reasons = await Promise.all(holds.map((lock) => aborted(lock.signal)));
    expect(monotonicNow() - revokedAt).toBeLessThan(SESSION_TTL_MS / 3 + 500);
    for (const reason of reasons) expect(LockError.is(reason, LockErrorCode.LockLost)).toBe(true);
    const next = await provider().acquire(keys[0] as string, { ttlMs: SESSION_TTL_MS, waitMs: 0 });
    expect(next.fencingToken).toBeGreaterThan(holds[0]?.fencingToken as bigint);
  });

  it("a session hold without renewal is deleted once its TTL is over, while the session lease lives on", async () => {
    const locks = provider();
    const [expiring, kept] = [`session-${randomUUID()}`, `session-${randomUUID()}`];
    const lock = await locks.acquire(expiring, { ttlMs: SESSION_TTL_MS, autoRenew: false });
    await locks.acquire(kept, { ttlMs: SESSION_TTL_MS });
    const session = await leaseOf(kept);
    await aborted(lock.signal);
    const other = provider();
    const next = await other.acquire(expiring, { ttlMs: SESSION_TTL_MS, waitMs: 2_000 });
    expect(next.fencingToken).toBeGreaterThan(lock.fencingToken as bigint);
    expect(Number((await raw.leaseClient.leaseTimeToLive({ ID: session })).TTL)).toBeGreaterThan(0);
    expect(await leaseOf(kept)).toBe(session);
  });

  it("an unrenewed session hold taken after another one armed the sweep is still deleted at its own TTL", async () => {
    const locks = provider();
    const [first, second] = [`session-${randomUUID()}`, `session-${randomUUID()}`];
    // The first hold arms the provider's one sweep for its expiry and is gone by then; the second expires later.
    await (await locks.acquire(first, { ttlMs: SESSION_TTL_MS, autoRenew: false })).release();
    const late = await locks.acquire(second, { ttlMs: SESSION_TTL_MS, autoRenew: false });
    await aborted(late.signal);
    const next = await provider().acquire(second, { ttlMs: SESSION_TTL_MS, waitMs: 2_000 });
    expect(next.fencingToken).toBeGreaterThan(late.fencingToken as bigint);
  });

  it("re-entry asking for a longer TTL moves the key to a longer lease and keeps its fencing token", async () => {
    const locks = provider();
    const key = `session-${randomUUID()}`;
    await runAsLockOwner(async () => {
      const outer = await locks.acquire(key, { ttlMs: SESSION_TTL_MS });
      const sessionLease = await leaseOf(key);
      const inner = await locks.acquire(key, { ttlMs: SESSION_TTL_MS * 4 });
      expect(inner.fencingToken).toBe(outer.fencingToken);
      expect(inner.holdCount).toBe(2);
      expect(await leaseOf(key)).not.toBe(sessionLease);
      expect((await locks.inspect(key))?.ttlRemainingMs).toBeGreaterThan(SESSION_TTL_MS * 3);
      await inner.release();
      await outer.release();
    });
    expect(await locks.inspect(key)).toBeNull();
  });

  it("an aborted wait leaves no member key behind, also on the session lease", async () => {
    const key = `session-${randomUUID()}`;
    await provider().acquire(key, { ttlMs: SESSION_TTL_MS });
    const controller = new AbortController();
    const waiting = provider().acquire(key, { ttlMs: SESSION_TTL_MS, signal: controller.signal });
    await untilQueueLength(raw, `distlock/${key}/`, 2);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    expect(Number(await raw.getAll().prefix(`distlock/${key}/`).count())).toBe(1);
  });
});
