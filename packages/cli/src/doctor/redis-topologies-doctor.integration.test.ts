import { type RedisCluster, type RedisSentinelSet, startRedisCluster, startRedisSentinelSet } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow, rowsOf } from "./doctor.test-support.js";

let cluster: RedisCluster;
let sentinel: RedisSentinelSet;

beforeAll(async () => {
  [cluster, sentinel] = await Promise.all([startRedisCluster({ args: ["--appendonly", "yes"] }), startRedisSentinelSet()]);
});
afterAll(async () => {
  await Promise.all([cluster?.close(), sentinel?.close()]);
});

describe("doctor on Redis Sentinel", () => {
  it("warns of waitForReplicas 0, min-replicas-to-write 0 and a single Sentinel; no persistence warning while a replica follows", async () => {
    const report = await checkLockBackend(sentinel.url);
    const view = expectRow(report, "redis.sentinel", "warn");
    expect(view.found).toBe(`master 127.0.0.1:${sentinel.master.port}, 1 of 1 replicas in sync, 1 Sentinels: one lost Sentinel can stall a failover vote`);
    expect(expectRow(report, "redis.wait-for-replicas", "warn").change).toContain("?waitForReplicas=1");
    expectRow(report, "redis.min-replicas-to-write", "warn");
    expectRow(report, "redis.persistence", "ok");
    expectRow(report, "self-test.cleanup", "ok");
  });

  it("passes waitForReplicas=1 and min-replicas-to-write 1; fails waitForReplicas above the replicas in sync", async () => {
    await sentinel.master.command("CONFIG", "SET", "min-replicas-to-write", "1");
    try {
      const report = await checkLockBackend(`${sentinel.url}?waitForReplicas=1`);
      expectRow(report, "redis.wait-for-replicas", "ok");
      expect(expectRow(report, "redis.min-replicas-to-write", "ok").found).toContain("1 replicas within the lag limit");
    } finally {
      await sentinel.master.command("CONFIG", "SET", "min-replicas-to-write", "0");
    }
    const tooMany = await checkLockBackend(`${sentinel.url}?waitForReplicas=2`, { selfTest: false });
    expect(expectRow(tooMany, "redis.wait-for-replicas", "fail").found).toContain("only 1 replicas are in sync");
  });

  it("fails a master name the Sentinels do not monitor", async () => {
    const url = sentinel.url.replace(/\/[^/]+$/, "/no-such-master");
    const report = await checkLockBackend(url, { selfTest: false });
    expectRow(report, "redis.sentinel", "fail");
    expect(report.reachable).toBe(false);
  });
});

describe("doctor on Redis Cluster", () => {
  it("passes a cluster with every slot covered, checking each master", async () => {
    const report = await checkLockBackend(cluster.url);
    expectAllOk(report);
    expect(expectRow(report, "redis.cluster", "ok").found).toContain("cluster_state ok, 16384 of 16384 slots assigned");
    expect(
      rowsOf(report, "redis.eviction")
        .map((row) => row.target)
        .sort(),
    ).toEqual(cluster.nodes.map((node) => `127.0.0.1:${node.port}`).sort());
  });

  it("fails a cluster with a slot no master serves", async () => {
    const [seed] = cluster.nodes;
    if (seed === undefined) throw new Error("no cluster node");
    // Each node forgets slot 0 (only its owner had it; the others answer that it is unassigned).
    for (const node of cluster.nodes) await node.command("CLUSTER", "DELSLOTS", "0").catch(() => undefined);
    await waitUntil(async () => !(await seed.clusterStateOk()));
    const row = expectRow(await checkLockBackend(cluster.url, { selfTest: false }), "redis.cluster", "fail", `127.0.0.1:${seed.port}`);
    expect(row.found).toContain("16383 of 16384 slots assigned");
  });
});

/** Polls `fact` until it holds (the cluster state is recomputed on the server's next cron tick). */
async function waitUntil(fact: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await fact())) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
