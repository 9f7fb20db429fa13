import { randomUUID } from "node:crypto";
import { FencedOutError, VersionConflictError } from "@distlock/core";
import { EtcdLockProvider } from "@distlock/etcd";
import { startEtcd } from "@distlock/test-servers";
import { Etcd3 } from "etcd3";
import { afterAll, describe, expect, it } from "vitest";
import { optimisticUpdate } from "./optimistic-update.js";

const server = await startEtcd();
const etcd = new Etcd3({ hosts: [...server.endpoints] });
const other = new Etcd3({ hosts: [...server.endpoints] });
const locks = new EtcdLockProvider({ hosts: server.endpoints });
afterAll(async () => {
  await locks.close();
  etcd.close();
  other.close();
  await server.close();
});

const NO_BACKOFF = { baseDelayMs: 0, maxDelayMs: 0 };

/** Adds `amount` to the number at `key`; `meddle` runs between the read and the commit. */
function addOptimistically(key: string, amount: number, meddle: (call: number) => Promise<unknown> = async () => undefined, maxAttempts = 10) {
  let calls = 0;
  return optimisticUpdate(
    etcd,
    key,
    async (current) => {
      await meddle(++calls);
      return String(Number(current?.toString() ?? 0) + amount);
    },
    { ...NO_BACKOFF, maxAttempts },
  );
}

describe("optimistic etcd updates", () => {
  it("commits at once when nobody else wrote, answering the commit's store revision", async () => {
    const key = `counter/${randomUUID()}`;
    const result = await addOptimistically(key, 5);
    expect(result.attempts).toBe(1);
    expect(result.conflicts).toBe(0);
    expect(await etcd.get(key).string()).toBe("5");
    expect(BigInt((await etcd.get(key).exec()).kvs[0]?.mod_revision ?? -1)).toBe(result.value);
  });

  it("starts over when another client writes between the read and the commit, and counts the conflict", async () => {
    const key = `counter/${randomUUID()}`;
    const result = await addOptimistically(key, 5, (call) => (call === 1 ? other.put(key).value("100").exec() : Promise.resolve()));
    expect(result.attempts).toBe(2);
    expect(result.conflicts).toBe(1);
    expect(await etcd.get(key).string()).toBe("105");
  });

  it("throws VersionConflictError after maxAttempts conflicts, leaving only the other client's writes", async () => {
    const key = `counter/${randomUUID()}`;
    const error = await addOptimistically(key, 5, (call) => other.put(key).value(String(call)).exec(), 3).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).attempts).toBe(3);
    expect(await etcd.get(key).string()).toBe("3");
  });

  it("deletes the key when update answers null, only if it is unchanged", async () => {
    const key = `counter/${randomUUID()}`;
    await etcd.put(key).value("1");
    let calls = 0;
    const result = await optimisticUpdate(
      etcd,
      key,
      async () => {
        if (++calls === 1) await other.put(key).value("2");
        return null;
      },
      NO_BACKOFF,
    );
    expect(result.attempts).toBe(2);
    expect(await etcd.get(key).string()).toBeNull();
  });

  it("writes nothing when update throws", async () => {
    const key = `counter/${randomUUID()}`;
    const failure = new Error("update failed");
    await expect(
      optimisticUpdate(etcd, key, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await etcd.get(key).string()).toBeNull();
  });

  it("with a lock, commits while it holds, and refuses without retrying once it was force-released", async () => {
    const lockKey = `lock-${randomUUID()}`;
    const lock = await locks.acquire(lockKey, { ttlMs: 60_000 });
    const view = { key: lock.key, fencingToken: lock.fencingToken, signal: new AbortController().signal };
    const key = `counter/${randomUUID()}`;
    await optimisticUpdate(etcd, key, () => "1", { lock: view });
    expect(await locks.forceRelease(lockKey)).toBe(true);
    let calls = 0;
    const error = await optimisticUpdate(
      etcd,
      key,
      () => {
        calls++;
        return "2";
      },
      { lock: view },
    ).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(FencedOutError);
    expect(calls).toBe(1);
    expect(await etcd.get(key).string()).toBe("1");
  });
});
