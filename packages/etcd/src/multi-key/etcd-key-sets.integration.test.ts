import { randomUUID } from "node:crypto";
import { MAX_MULTI_KEYS, runAsLockOwner } from "@distlock/core";
import { Etcd3 } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcdWithClient } from "../../test/etcd-with-client.js";
import { untilQueueLength } from "../../test/queue-length.js";
import { EtcdLockProvider } from "../etcd-lock-provider.js";

/** Long enough that no watchdog renewal (a txn of its own) falls inside a test. */
const SESSION_TTL_MS = 30_000;
const TTL = { ttlMs: SESSION_TTL_MS };

const { server, raw } = await startEtcdWithClient();

/** The store's revision: every write txn moves it by exactly one, whatever number of keys it writes. */
async function revision(): Promise<bigint> {
  return BigInt((await raw.kv.range({ key: Buffer.from("revision-probe") })).header.revision);
}

/** `count` fresh keys, in byte order. */
function keySet(label: string, count: number): string[] {
  const base = `${label}-${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => `${base}:${String(i).padStart(2, "0")}`);
}

describe("multi-key sets on etcd", () => {
  const closing: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    await Promise.allSettled(closing.splice(0).map((each) => each.close()));
  });

  /** A provider on a client of its own whose txn calls are counted. */
  function countedProvider(): { locks: EtcdLockProvider; txns: () => number } {
    const client = new Etcd3({ hosts: [...server.endpoints] });
    const txn = client.kv.txn.bind(client.kv);
    let calls = 0;
    client.kv.txn = (...args) => {
      calls++;
      return txn(...args);
    };
    const locks = new EtcdLockProvider({ client, sessionTtlMs: SESSION_TTL_MS });
    closing.push({ close: () => locks.close().finally(() => client.close()) });
    return { locks, txns: () => calls };
  }

  function provider(): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts: server.endpoints, sessionTtlMs: SESSION_TTL_MS });
    closing.push(locks);
    return locks;
  }

  it.each([
    ["on the session lease", SESSION_TTL_MS],
    ["on leases of their own", SESSION_TTL_MS * 2],
  ])("takes a set of MAX_MULTI_KEYS keys %s in one txn and releases it in one, each key's token its create revision", async (_, ttlMs) => {
    const { locks, txns } = countedProvider();
    const keys = keySet("one-txn", MAX_MULTI_KEYS);
    await (await locks.acquireAll(keys.slice(0, 2), { ttlMs })).release();
    const [txnsBefore, revisionBefore] = [txns(), await revision()];
    const set = await locks.acquireAll(keys, { ttlMs });
    expect(txns() - txnsBefore).toBe(1);
    expect(await revision()).toBe(revisionBefore + 1n);
    for (const lock of set.locks) {
      expect(lock.fencingToken).toBe(revisionBefore + 1n);
      expect((await locks.inspect(lock.key))?.fencingToken).toBe(lock.fencingToken);
    }
    const releaseTxnsBefore = txns();
    await set.release();
    expect(txns() - releaseTxnsBefore).toBe(1);
    expect(await revision()).toBe(revisionBefore + 2n);
    for (const key of keys) expect(await locks.inspect(key)).toBeNull();
  });

  it("re-enters the keys the owner holds within the same txn, their tokens kept", async () => {
    const { locks, txns } = countedProvider();
    const keys = keySet("reenter", 3);
    await runAsLockOwner(async () => {
      const held = await locks.acquire(keys[1] as string, TTL);
      const before = txns();
      const set = await locks.acquireAll(keys, TTL);
      expect(txns() - before).toBe(1);
      expect(set.locks.map((lock) => lock.holdCount)).toEqual([1, 2, 1]);
      expect(set.fencingTokens.get(keys[1] as string)).toBe(held.fencingToken);
      await set.release();
      expect((await locks.inspect(keys[1] as string))?.holdCount).toBe(1);
      expect(await locks.inspect(keys[0] as string)).toBeNull();
      await held.release();
    });
  });

  it("never overtakes a line: a key with a waiter refuses the set, and a waiting set queues behind that waiter", async () => {
    const [holder, waiter, caller] = [provider(), provider(), provider()];
    const keys = keySet("line", 3);
    const lined = keys[1] as string;
    const held = await holder.acquire(lined, TTL);
    const waiting = waiter.acquire(lined, TTL);
    await untilQueueLength(raw, `distlock/${lined}/`, 2);
    expect(await caller.tryAcquireAll(keys, TTL)).toBeNull();
    for (const key of [keys[0], keys[2]]) expect(Number(await raw.getAll().prefix(`distlock/${key}/`).count())).toBe(0);
    const set = caller.acquireAll(keys, TTL);
    await untilQueueLength(raw, `distlock/${lined}/`, 3);
    await held.release();
    const next = await waiting;
    expect((await caller.inspect(lined))?.fencingToken).toBe(next.fencingToken);
    await next.release();
    const locks = await set;
    expect(locks.fencingTokens.get(lined) as bigint).toBeGreaterThan(next.fencingToken as bigint);
    await locks.release();
  });

  it("a set with nested keys (a, a/b) takes one txn per run of unnested keys, the outer key first", async () => {
    const { locks, txns } = countedProvider();
    const base = `nested-${randomUUID()}`;
    const keys = [base, `${base}/a`, `${base}/b`];
    const before = txns();
    const set = await locks.tryAcquireAll(keys, TTL);
    expect(txns() - before).toBe(2);
    const [outer, inner, sibling] = set?.locks ?? [];
    expect(inner?.fencingToken).toBe(sibling?.fencingToken);
    expect(outer?.fencingToken as bigint).toBeLessThan(inner?.fencingToken as bigint);
    expect((await locks.inspect(base))?.fencingToken).toBe(outer?.fencingToken);
    await set?.release();
    for (const key of keys) expect(await locks.inspect(key)).toBeNull();
  });
});
