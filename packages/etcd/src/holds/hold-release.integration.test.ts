import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode } from "@distlock/core";
import { Etcd3 } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcdWithClient } from "../../test/etcd-with-client.js";
import { EtcdLockProvider } from "../etcd-lock-provider.js";

/** Long enough that no watchdog renewal falls inside a test. */
const TTL = { ttlMs: 30_000 };

const { server, raw } = await startEtcdWithClient();

/** The member keys under `key`'s lock prefix (holder and waiters). */
const membersOf = (key: string) => raw.getAll().prefix(`distlock/${key}/`).keys();

describe("releasing a hold on etcd", () => {
  const closing: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    await Promise.allSettled(closing.splice(0).map((each) => each.close()));
  });

  /** A provider on a client of its own whose txn and delete calls are counted. */
  function countedProvider(): { locks: EtcdLockProvider; calls: { txn: number; deleteRange: number } } {
    const client = new Etcd3({ hosts: [...server.endpoints] });
    const calls = { txn: 0, deleteRange: 0 };
    const [txn, deleteRange] = [client.kv.txn.bind(client.kv), client.kv.deleteRange.bind(client.kv)];
    client.kv.txn = (...args) => {
      calls.txn++;
      return txn(...args);
    };
    client.kv.deleteRange = (...args) => {
      calls.deleteRange++;
      return deleteRange(...args);
    };
    const locks = new EtcdLockProvider({ client, sessionTtlMs: TTL.ttlMs });
    closing.push({ close: () => locks.close().finally(() => client.close()) });
    return { locks, calls };
  }

  function provider(): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts: server.endpoints, sessionTtlMs: TTL.ttlMs });
    closing.push(locks);
    return locks;
  }

  it("releases a fresh owner's hold with one plain delete of its member key, no txn", async () => {
    const { locks, calls } = countedProvider();
    const key = `fresh-${randomUUID()}`;
    const lock = await locks.acquire(key, TTL);
    expect(calls).toEqual({ txn: 1, deleteRange: 0 });
    expect(await membersOf(key)).toHaveLength(1);
    await lock.release();
    expect(calls).toEqual({ txn: 1, deleteRange: 1 });
    expect(await membersOf(key)).toEqual([]);
    // The member key's name is free again: the next hold of this provider takes it.
    await (await locks.acquire(key, TTL)).release();
    expect(await membersOf(key)).toEqual([]);
  });

  it("answers LOCK_LOST when the fresh owner's member key was deleted under it, and frees the name for the next hold", async () => {
    const { locks } = countedProvider();
    const key = `deleted-${randomUUID()}`;
    const lock = await locks.acquire(key, TTL);
    const [member] = await membersOf(key);
    await raw.delete().key(member as string);
    const error = await lock.release().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(LockError.is(error, LockErrorCode.LockLost)).toBe(true);
    const next = await locks.acquire(key, TTL);
    expect(await membersOf(key)).toEqual([member]);
    await next.release();
  });

  it("keeps the compare-and-delete txn for an explicit owner: a co-owner's re-entry through another provider survives the first release", async () => {
    const { locks, calls } = countedProvider();
    const key = `explicit-${randomUUID()}`;
    const first = await locks.acquire(key, { ...TTL, owner: "shared-owner" });
    const second = await provider().acquire(key, { ...TTL, owner: "shared-owner" });
    expect(second.fencingToken).toBe(first.fencingToken);
    const before = { ...calls };
    await first.release();
    expect(calls).toEqual({ txn: before.txn + 2, deleteRange: 0 });
    expect(await membersOf(key)).toHaveLength(1);
    expect((await provider().inspect(key))?.fencingToken).toBe(first.fencingToken);
    await second.release();
    expect(await membersOf(key)).toEqual([]);
  });
});
