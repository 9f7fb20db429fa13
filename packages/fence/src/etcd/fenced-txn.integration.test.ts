import { randomUUID } from "node:crypto";
import { FencedOutError, type Lock, VersionConflictError } from "@distlock/core";
import { EtcdLockProvider } from "@distlock/etcd";
import { startEtcd } from "@distlock/test-servers";
import { Etcd3 } from "etcd3";
import { afterAll, describe, expect, it } from "vitest";
import type { FencingLock } from "../fencing-token.js";
import { fencedTxn } from "./fenced-txn.js";

const server = await startEtcd();
const etcd = new Etcd3({ hosts: [...server.endpoints] });
const first = new EtcdLockProvider({ hosts: server.endpoints });
const second = new EtcdLockProvider({ hosts: server.endpoints });
afterAll(async () => {
  await Promise.allSettled([first.close(), second.close()]);
  etcd.close();
  await server.close();
});

/**
 * A hold as a paused process sees it after losing it: the token it was granted, and a signal that has not fired (its
 * timers and watches have not run). The real lock's signal may fire at any time once its key is gone.
 */
function paused(lock: Lock): FencingLock {
  return { key: lock.key, fencingToken: lock.fencingToken, signal: new AbortController().signal };
}

/** The first holder, paused, force-released by an admin; then the second holder. */
async function staleThenCurrent(): Promise<{ stale: FencingLock; current: Lock }> {
  const key = `lock-${randomUUID()}`;
  const stale = paused(await first.acquire(key, { ttlMs: 60_000 }));
  expect(await second.forceRelease(key)).toBe(true);
  const current = await second.acquire(key, { ttlMs: 60_000 });
  expect(current.fencingToken).toBeGreaterThan(stale.fencingToken as bigint);
  return { stale, current };
}

async function rejection(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => undefined,
    (reason: unknown) => reason,
  );
}

async function storedValue(key: string): Promise<string | null> {
  return etcd.get(key).string();
}

describe("fenced etcd transactions", () => {
  it("commits while the lock holds, answering the commit's store revision", async () => {
    const lock = await first.acquire(`lock-${randomUUID()}`, { ttlMs: 60_000 });
    const [price, stale] = [`price/${randomUUID()}`, `stale/${randomUUID()}`];
    await etcd.put(stale).value("old");
    const { revision } = await fencedTxn(etcd, lock, { puts: { [price]: "20" }, deletes: [stale] });
    expect(await storedValue(price)).toBe("20");
    expect(await storedValue(stale)).toBeNull();
    const kv = await etcd.get(price).exec();
    expect(BigInt(kv.kvs[0]?.mod_revision ?? -1)).toBe(revision);
    await lock.release();
  });

  it("finds the lock under a provider's own prefix, and refuses when told another one", async () => {
    const prefix = `app-${randomUUID()}`;
    const custom = new EtcdLockProvider({ hosts: server.endpoints, prefix });
    try {
      const lock = await custom.acquire(`lock-${randomUUID()}`, { ttlMs: 60_000 });
      const key = `price/${randomUUID()}`;
      await fencedTxn(etcd, lock, { puts: { [key]: "1" } }, { prefix });
      const error = await rejection(fencedTxn(etcd, lock, { puts: { [key]: "2" } }));
      expect(error).toBeInstanceOf(FencedOutError);
      expect((error as FencedOutError).storedToken).toBeNull();
      expect(await storedValue(key)).toBe("1");
    } finally {
      await custom.close();
    }
  });

  it("refuses the stale holder after the current one wrote, naming both tokens, and writes none of its puts and deletes", async () => {
    const { stale, current } = await staleThenCurrent();
    const [price, stock] = [`price/${randomUUID()}`, `stock/${randomUUID()}`];
    await fencedTxn(etcd, current, { puts: { [price]: "20", [stock]: "5" } });
    const error = await rejection(fencedTxn(etcd, stale, { puts: { [price]: "10", [`new/${randomUUID()}`]: "x" }, deletes: [stock] }));
    expect(error).toBeInstanceOf(FencedOutError);
    expect((error as FencedOutError).fencingToken).toBe(stale.fencingToken);
    expect((error as FencedOutError).storedToken).toBe(current.fencingToken);
    expect((error as FencedOutError).resource).toMatch(/^etcd keys "price\//);
    expect(await storedValue(price)).toBe("20");
    expect(await storedValue(stock)).toBe("5");
  });

  it("refuses a holder whose key was force-released while nobody holds the lock, with no stored token", async () => {
    const key = `lock-${randomUUID()}`;
    const stale = paused(await first.acquire(key, { ttlMs: 60_000 }));
    expect(await second.forceRelease(key)).toBe(true);
    expect(await second.inspect(key)).toBeNull();
    const price = `price/${randomUUID()}`;
    const error = await rejection(fencedTxn(etcd, stale, { puts: { [price]: "10" } }));
    expect(error).toBeInstanceOf(FencedOutError);
    expect((error as FencedOutError).storedToken).toBeNull();
    expect(await storedValue(price)).toBeNull();
  });

  it("refuses a paused holder whose lease expired, once the next holder took the lock", async () => {
    const key = `lock-${randomUUID()}`;
    const expiring = await first.acquire(key, { ttlMs: 2_000, autoRenew: false });
    const stale = paused(expiring);
    const current = await second.acquire(key, { ttlMs: 60_000 });
    const price = `price/${randomUUID()}`;
    await fencedTxn(etcd, current, { puts: { [price]: "20" } });
    const error = await rejection(fencedTxn(etcd, stale, { puts: { [price]: "10" } }));
    expect((error as FencedOutError).storedToken).toBe(current.fencingToken);
    expect(await storedValue(price)).toBe("20");
  });

  it("refuses a holder whose hold ends between its read of the holder and its commit", async () => {
    const key = `lock-${randomUUID()}`;
    const lock = await first.acquire(key, { ttlMs: 60_000 });
    const releasedAfterRead = {
      kv: {
        range: async (request: Parameters<Etcd3["kv"]["range"]>[0]) => {
          const response = await etcd.kv.range(request);
          expect(await second.forceRelease(key)).toBe(true);
          return response;
        },
        txn: (request: Parameters<Etcd3["kv"]["txn"]>[0]) => etcd.kv.txn(request),
      },
    } as unknown as Etcd3;
    const price = `price/${randomUUID()}`;
    const error = await rejection(fencedTxn(releasedAfterRead, paused(lock), { puts: { [price]: "10" } }));
    expect(error).toBeInstanceOf(FencedOutError);
    expect((error as FencedOutError).storedToken).toBeNull();
    expect(await storedValue(price)).toBeNull();
  });

  it("commits when every ifModRevision still holds (0: the key is absent), else VersionConflictError and nothing written", async () => {
    const lock = await first.acquire(`lock-${randomUUID()}`, { ttlMs: 60_000 });
    const [price, fresh] = [`price/${randomUUID()}`, `fresh/${randomUUID()}`];
    const { revision } = await fencedTxn(etcd, lock, { puts: { [price]: "1" }, ifModRevision: { [price]: 0 } });
    await fencedTxn(etcd, lock, { puts: { [price]: "2", [fresh]: "x" }, ifModRevision: { [price]: revision, [fresh]: 0n } });
    const error = await rejection(fencedTxn(etcd, lock, { puts: { [price]: "3" }, deletes: [fresh], ifModRevision: { [price]: revision } }));
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).attempts).toBe(1);
    expect(await storedValue(price)).toBe("2");
    expect(await storedValue(fresh)).toBe("x");
    await lock.release();
  });

  it("names the lost hold, not the version, when both checks would fail", async () => {
    const { stale, current } = await staleThenCurrent();
    const price = `price/${randomUUID()}`;
    await fencedTxn(etcd, current, { puts: { [price]: "20" } });
    const error = await rejection(fencedTxn(etcd, stale, { puts: { [price]: "10" }, ifModRevision: { [price]: 0 } }));
    expect(error).toBeInstanceOf(FencedOutError);
  });
});
