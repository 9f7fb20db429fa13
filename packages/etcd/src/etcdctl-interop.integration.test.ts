import { randomUUID } from "node:crypto";
import { monotonicNow } from "@distlock/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcdWithClient } from "../test/etcd-with-client.js";
import { type EtcdctlLock, spawnEtcdctlLock } from "../test/etcdctl-lock.js";
import { untilQueueLength } from "../test/queue-length.js";
import { EtcdLockProvider } from "./etcd-lock-provider.js";

const { server, raw } = await startEtcdWithClient();

describe("interop with etcdctl lock (Go's concurrency.Mutex)", () => {
  const providers: EtcdLockProvider[] = [];
  const etcdctls: EtcdctlLock[] = [];
  afterEach(async () => {
    for (const etcdctl of etcdctls.splice(0)) etcdctl.child.kill("SIGKILL");
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  function provider(): EtcdLockProvider {
    const locks = new EtcdLockProvider({ hosts: server.endpoints });
    providers.push(locks);
    return locks;
  }

  function etcdctlLock(key: string, options?: Parameters<typeof spawnEtcdctlLock>[2]): EtcdctlLock {
    const etcdctl = spawnEtcdctlLock(server.endpoint, `distlock/${key}`, options);
    etcdctls.push(etcdctl);
    return etcdctl;
  }

  it("a key etcdctl holds is refused to distlock and granted right after etcdctl unlocks", async () => {
    const key = `interop-${randomUUID()}`;
    const etcdctl = etcdctlLock(key);
    const member = await etcdctl.nextLine();
    expect(member).toMatch(new RegExp(`^distlock/${key}/[0-9a-f]+$`));
    const locks = provider();
    expect(await locks.tryAcquire(key)).toBeNull();
    const state = await locks.inspect(key);
    expect(state?.holder).toBe(`etcd-client:${member.split("/").at(-1)}`);
    const waiting = locks.acquire(key, { waitMs: 20_000 }).then((lock) => ({ lock, at: monotonicNow() }));
    await untilQueueLength(raw, `distlock/${key}/`, 2);
    const unlockedAt = monotonicNow();
    etcdctl.child.kill("SIGINT");
    const { lock, at } = await waiting;
    expect(at).toBeGreaterThan(unlockedAt);
    expect(at - unlockedAt).toBeLessThan(1500);
    expect(lock.holdCount).toBe(1);
    expect(lock.fencingToken).toBeGreaterThan(state?.fencingToken as bigint);
    await lock.release();
  });

  it("etcdctl lock waits while distlock holds the key and runs its command only after the release", async () => {
    const key = `interop-${randomUUID()}`;
    const locks = provider();
    const lock = await locks.acquire(key, { ttlMs: 30_000 });
    const etcdctl = etcdctlLock(key, { command: ["echo", "etcdctl-has-it"] });
    await untilQueueLength(raw, `distlock/${key}/`, 2);
    expect(etcdctl.lines).toEqual([]);
    expect(await locks.tryAcquire(key, { owner: `other-${randomUUID()}` })).toBeNull();
    await lock.release();
    expect(await etcdctl.nextLine()).toBe("etcdctl-has-it");
    expect(await etcdctl.exited).toEqual({ code: 0, signal: null });
    expect(await locks.inspect(key)).toBeNull();
  });

  it("a SIGKILLed etcdctl holder blocks distlock only until its session TTL runs out", async () => {
    const key = `interop-${randomUUID()}`;
    const etcdctl = etcdctlLock(key, { ttlSeconds: 2 });
    await etcdctl.nextLine();
    etcdctl.child.kill("SIGKILL");
    await etcdctl.exited;
    const killedAt = monotonicNow();
    const lock = await provider().acquire(key, { waitMs: 5_000 });
    expect(monotonicNow() - killedAt).toBeLessThan(2_000 + 1_500);
    await lock.release();
  });

  it("a second owner of the same provider queues on the session lease as <leaseHex>-1, ahead of a later etcdctl", async () => {
    const key = `interop-${randomUUID()}`;
    const locks = provider();
    const first = await locks.acquire(key, { owner: `first-${randomUUID()}` });
    const order: string[] = [];
    const second = locks.acquire(key, { owner: `second-${randomUUID()}`, waitMs: 20_000 }).then(async (lock) => {
      order.push("second owner");
      await lock.release();
    });
    await untilQueueLength(raw, `distlock/${key}/`, 2);
    const members = (await raw.getAll().prefix(`distlock/${key}/`).keys()).sort();
    const lease = members[0]?.split("/").at(-1);
    expect(members).toEqual([`distlock/${key}/${lease}`, `distlock/${key}/${lease}-1`]);
    const etcdctl = etcdctlLock(key, { command: ["echo", "etcdctl"] });
    await untilQueueLength(raw, `distlock/${key}/`, 3);
    void etcdctl.nextLine().then((line) => order.push(line));
    await first.release();
    await Promise.all([second, etcdctl.exited]);
    expect(order).toEqual(["second owner", "etcdctl"]);
  });

  it("etcdctl and distlock waiters share one FIFO queue", async () => {
    const key = `interop-${randomUUID()}`;
    const locks = provider();
    const holder = await locks.acquire(key, { ttlMs: 30_000 });
    const order: string[] = [];
    const etcdctl = etcdctlLock(key, { command: ["echo", "etcdctl"] });
    await untilQueueLength(raw, `distlock/${key}/`, 2);
    const waiter = provider()
      .acquire(key, { waitMs: 20_000 })
      .then(async (lock) => {
        order.push("distlock");
        await lock.release();
      });
    await untilQueueLength(raw, `distlock/${key}/`, 3);
    void etcdctl.nextLine().then((line) => order.push(line));
    await holder.release();
    await Promise.all([waiter, etcdctl.exited]);
    expect(order).toEqual(["etcdctl", "distlock"]);
  });
});
