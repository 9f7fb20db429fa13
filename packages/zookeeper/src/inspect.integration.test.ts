import { startZooKeeper } from "@distlock/test-servers";
import zookeeper, { type Client } from "node-zookeeper-client";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ZooKeeperLockProvider } from "./zookeeper-lock-provider.js";

const server = await startZooKeeper();
afterAll(() => server.close());

function connected(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.once("connected", () => resolve());
    client.connect();
  });
}

/** The zxid of the transaction that creates `path`: the server's transaction count at that moment. */
function createdAt(client: Client, path: string): Promise<bigint> {
  return new Promise((resolve, reject) => {
    client.create(path, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL, (error) => {
      if (error !== null) return reject(error);
      client.exists(path, (failed, stat) => (failed !== null || stat === null ? reject(failed) : resolve(stat.czxid.readBigUInt64BE())));
    });
  });
}

describe("inspect on ZooKeeper", () => {
  it("first commits a transaction through the leader, so its server has applied every change committed before the call", async () => {
    await using provider = new ZooKeeperLockProvider({ url: `zookeeper://127.0.0.1:${server.port}/catch-up` });
    const probe = zookeeper.createClient(`127.0.0.1:${server.port}`);
    await connected(probe);
    try {
      expect(await provider.inspect("warm-up")).toBeNull();
      const before = await createdAt(probe, "/probe-before");
      expect(await provider.inspect("nobody-holds-it")).toBeNull();
      const after = await createdAt(probe, "/probe-after");
      expect(after - before).toBe(2n);
      const semaphore = provider.semaphore("catch-up", { permits: 2 });
      expect(await semaphore.inspect()).toBeNull();
      expect((await createdAt(probe, "/probe-semaphore")) - after).toBe(2n);
    } finally {
      probe.close();
    }
  });

  it("does not count the leases of an acquirer that waits, with them in place, for the count to fall", async () => {
    await using holding = new ZooKeeperLockProvider({ url: `zookeeper://127.0.0.1:${server.port}/inspect` });
    await using waiting = new ZooKeeperLockProvider({ url: `zookeeper://127.0.0.1:${server.port}/inspect` });
    const probe = zookeeper.createClient(`127.0.0.1:${server.port}`);
    await connected(probe);
    try {
      const held = await holding.semaphore("pending", { permits: 1 }).acquire();
      const waiter = waiting.semaphore("pending", { permits: 1 }).acquire({ waitMs: 10_000 });
      await vi.waitFor(async () => expect(await leaseNodes(probe, "/inspect/semaphores/pending/leases")).toBe(2), { timeout: 5_000 });
      const state = await holding.semaphore("pending", { permits: 1 }).inspect();
      expect(state).toMatchObject({ inUse: 1, waiters: 1, holders: [{ count: 1, fencingToken: held.fencingToken }] });
      await held.release();
      const next = await waiter;
      expect((await holding.semaphore("pending", { permits: 1 }).inspect())?.holders).toMatchObject([{ fencingToken: next.fencingToken }]);
      await next.release();
    } finally {
      probe.close();
    }
  });
});

function leaseNodes(client: Client, path: string): Promise<number> {
  return new Promise((resolve, reject) => client.getChildren(path, (error, children) => (error === null ? resolve(children.length) : reject(error))));
}
