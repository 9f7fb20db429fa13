import { randomUUID } from "node:crypto";
import { LockErrorCode, type Permit } from "@distlock/core";
import type { RedisServer } from "@distlock/test-servers";
import { describe, expect, it } from "vitest";
import { fiveMasters } from "../../test/five-masters.js";

const TTL_MS = 30_000;

const { servers, provider } = await fiveMasters();

const tag = (name: string) => `{distlock-redlock:${name}}`;

/**
 * Runs `attempt` while the nodes at `blocked` (0-based) refuse every newcomer: each gets a live place at the head of
 * the semaphore's line there (ticket 0), which a partition would do as well by leaving them out of the attempt.
 */
async function withNodesRefusing<T>(name: string, blocked: readonly number[], attempt: () => Promise<T>): Promise<T> {
  const id = `blocker-${randomUUID()}`;
  const targets = blocked.map((i) => servers[i] as RedisServer);
  await Promise.all(
    targets.map(async (server) => {
      const [seconds] = (await server.command("TIME")) as [string, string];
      await server.command("ZADD", `${tag(name)}:sem:line`, "0", id);
      await server.command("HSET", `${tag(name)}:sem:waiters`, id, String(Number(seconds) * 1000 + 60_000));
    }),
  );
  try {
    return await attempt();
  } finally {
    await Promise.all(targets.map((server) => server.command("EVAL", LEAVE, "2", `${tag(name)}:sem:line`, `${tag(name)}:sem:waiters`, id)));
  }
}
const LEAVE = `redis.call("ZREM", KEYS[1], ARGV[1]) redis.call("HDEL", KEYS[2], ARGV[1]) return 1`;

describe("the counting quorum of a Redlock semaphore", () => {
  it("2 permits on 5 nodes: grants that each saw a different majority never make three holders (a majority rule would)", async () => {
    const name = `quorum:${randomUUID()}`;
    const semaphore = provider().semaphore(name, { permits: 2 });
    const take = () => semaphore.tryAcquire({ ttlMs: TTL_MS, autoRenew: false });
    const held: Permit[] = [];
    const keep = (permit: Permit | null) => {
      if (permit !== null) held.push(permit);
      expect(held.length).toBeLessThanOrEqual(2);
    };
    // The README's counter-example: with a majority (3 of 5) these three land on {1,2,3,4}, {3,4,5} and {1,2,5}
    // (1-based), which leaves every node at exactly 2 permits and three holders at once.
    keep(await withNodesRefusing(name, [4], take));
    keep(await withNodesRefusing(name, [0, 1], take));
    keep(await withNodesRefusing(name, [2, 3], take));
    // The counting quorum (4 of 5) granted the first only; one more grant fits on every node, then none does.
    keep(await take());
    expect(held.length).toBe(2);
    expect(await take()).toBeNull();
    const state = await semaphore.inspect();
    expect(state?.inUse).toBe(2);
    await Promise.all(held.map((permit) => permit.release()));
    expect(await semaphore.inspect()).toBeNull();
  });

  it("P = 2 needs 4 of 5 nodes: with 1 stopped a grant holds, with 2 stopped grants and releases are QUORUM_NOT_REACHED", async () => {
    const semaphore = provider().semaphore(`down:${randomUUID()}`, { permits: 2 });
    await (servers[4] as RedisServer).stop();
    const permit = await semaphore.acquire({ ttlMs: TTL_MS, autoRenew: false });
    expect(permit.count).toBe(1);
    await (servers[3] as RedisServer).stop();
    await expect(semaphore.tryAcquire({ ttlMs: TTL_MS })).rejects.toMatchObject({ code: LockErrorCode.QuorumNotReached });
    await expect(permit.release()).rejects.toMatchObject({ code: LockErrorCode.QuorumNotReached });
  });

  it("a read-write lock keeps a majority rule: with 2 of 5 nodes stopped, readers share and a writer waits for them", async () => {
    const lock = provider().readWriteLock(`rw:${randomUUID()}`);
    await Promise.all([servers[0], servers[1]].map((server) => (server as RedisServer).stop()));
    const readers = [await lock.read.acquire({ ttlMs: TTL_MS }), await lock.read.acquire({ ttlMs: TTL_MS })];
    expect(await lock.write.tryAcquire({ ttlMs: TTL_MS })).toBeNull();
    await Promise.all(readers.map((reader) => reader.release()));
    const writer = await lock.write.acquire({ ttlMs: TTL_MS, waitMs: 5_000 });
    expect(await lock.read.tryAcquire({ ttlMs: TTL_MS })).toBeNull();
    await writer.release();
  });
});
