import { startTcpProxy, startZooKeeper } from "@distlock/test-servers";
import zookeeper, { type Client } from "node-zookeeper-client";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { connected, remove } from "../test/plain-client.js";
import { WireClient } from "./connection/wire-client.js";
import { ZooKeeperLockProvider } from "./zookeeper-lock-provider.js";

const server = await startZooKeeper();
afterAll(() => server.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const provider = (port: number, chroot: string) => new ZooKeeperLockProvider({ url: `zookeeper://127.0.0.1:${port}/${chroot}?sessionTimeoutMs=10000` });

/** A node in the line of `lockPath` from a client without distlock, as a Curator process would put it there. */
function joinAsCurator(client: Client, lockPath: string): Promise<string> {
  return new Promise((resolve, reject) =>
    client.create(`${lockPath}/_c_0f7e2f0c-4c59-4a4e-9d3c-curator-lock-`, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, (error, path) =>
      error === null ? resolve(path) : reject(error),
    ),
  );
}

/** Takes and releases `key` `times` times; resolves with how many line reads the takes sent. */
async function takeOverAndOver(locks: ZooKeeperLockProvider, key: string, times: number): Promise<number> {
  const reads = vi.spyOn(WireClient.prototype, "getChildren");
  for (let i = 0; i < times; i++) await (await locks.acquire(key)).release();
  const count = reads.mock.calls.length;
  reads.mockRestore();
  return count;
}

/** Takes and releases a permit of semaphore `name` `times` times; resolves with how many reads of its internal line they sent. */
async function takePermitOverAndOver(locks: ZooKeeperLockProvider, name: string, times: number): Promise<number> {
  const semaphore = locks.semaphore(name, { permits: 2 });
  const reads = vi.spyOn(WireClient.prototype, "getChildren");
  for (let i = 0; i < times; i++) await (await semaphore.acquire()).release();
  const count = reads.mock.calls.filter(([path]) => String(path).endsWith(`/${name}/locks`)).length;
  reads.mockRestore();
  return count;
}

describe("lines kept by a watch on ZooKeeper", () => {
  it("a lock path taken over and over is taken without a line read, and its watch shows a node another client put in line", async () => {
    await using locks = provider(server.port, "views");
    const curator = zookeeper.createClient(`127.0.0.1:${server.port}`);
    await connected(curator);
    try {
      // The first take reads the line along with its create; the second sets the watch up and reads the line once more.
      expect(await takeOverAndOver(locks, "k", 10)).toBe(2);
      const reads = vi.spyOn(WireClient.prototype, "getChildren");
      const ahead = await joinAsCurator(curator, "/views/locks/k");
      expect(await locks.tryAcquire("k")).toBeNull();
      expect(reads).not.toHaveBeenCalled();
      const waiting = locks.acquire("k", { waitMs: 10_000 });
      await remove(curator, ahead);
      await (await waiting).release();
    } finally {
      curator.close();
    }
  });

  it("a semaphore's internal line is read before joining it and along with the create, not once more after", async () => {
    await using locks = provider(server.port, "permits");
    // Each attempt looks at the line first (a refused try joins nothing); the create's read is the view's after the second.
    expect(await takePermitOverAndOver(locks, "s", 10)).toBe(12);
  });

  it("after a dropped connection a take reads the line again: the events of the downtime never came to the old view", async () => {
    await using proxy = await startTcpProxy(server.port);
    await using viewer = provider(proxy.port, "dropped");
    await using other = provider(server.port, "dropped");
    expect(await takeOverAndOver(viewer, "k", 3)).toBe(2);
    proxy.blackhole();
    const held = await other.acquire("k");
    proxy.dropConnections();
    proxy.restore();
    const reads = vi.spyOn(WireClient.prototype, "getChildren");
    expect(await viewer.tryAcquire("k")).toBeNull();
    expect(reads).toHaveBeenCalled();
    reads.mockRestore();
    await held.release();
    // A line where a take had to wait gets no view for a while: every view of a busy line would hear all of its traffic.
    expect(await takeOverAndOver(viewer, "k", 3)).toBe(3);
  });
});
