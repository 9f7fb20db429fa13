import { type EtcdCluster, type EtcdServer, startEtcd, startEtcdCluster } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow, rowsOf } from "./doctor.test-support.js";

let cluster: EtcdCluster;
let pair: EtcdCluster;
let single: EtcdServer;
let slowElections: EtcdServer;

beforeAll(async () => {
  [cluster, pair, single, slowElections] = await Promise.all([
    startEtcdCluster(3),
    startEtcdCluster(2),
    startEtcd(),
    // Minimum lease ≈ 1.5 election timeouts: 1.5 × 5 s rounds up to 8 s.
    startEtcd({ heartbeatIntervalMs: 100, electionTimeoutMs: 5_000 }),
  ]);
});
afterAll(async () => {
  await Promise.all([cluster?.close(), pair?.close(), single?.close(), slowElections?.close()]);
});

const urlOf = (server: EtcdServer) => `etcd://${server.host}:${server.port}`;

describe("doctor on etcd", () => {
  it("passes a three-member cluster: health and leader on every endpoint, members, minimum lease, self-test", async () => {
    const report = await checkLockBackend(cluster.url);
    expectAllOk(report);
    expect(rowsOf(report, "etcd.health")).toHaveLength(3);
    expect(expectRow(report, "etcd.members", "ok").found).toBe("3 voting members (quorum 2, survives 1 lost)");
    expectRow(report, "self-test.cleanup", "ok");
  });

  it("warns of a single member", async () => {
    expect(expectRow(await checkLockBackend(urlOf(single), { selfTest: false }), "etcd.members", "warn").found).toContain("one lost member stops every lock");
  });

  it("warns of an even member count", async () => {
    expect(expectRow(await checkLockBackend(pair.url, { selfTest: false }), "etcd.members", "warn").found).toBe(
      "2 voting members (quorum 2, survives 0 lost): an even count tolerates no more failures than one member fewer",
    );
  });

  it("fails endpoints of two different clusters (each names another leader)", async () => {
    const report = await checkLockBackend(`${urlOf(single)},${urlOf(slowElections).slice("etcd://".length)}`, { selfTest: false });
    expect(expectRow(report, "etcd.leader", "fail").found).toContain("endpoints name different leaders");
  });

  it("warns when the cluster's minimum lease is longer than the lease in use", async () => {
    const report = await checkLockBackend(urlOf(slowElections), { selfTest: false, ttlMs: 2_000 });
    expect(expectRow(report, "etcd.lease", "warn").found).toMatch(/a 1 s lease was granted as [4-9] s/);
    expectRow(await checkLockBackend(urlOf(slowElections), { selfTest: false }), "etcd.lease", "ok");
  });

  it("fails an endpoint that does not answer, and is unreachable when none does", async () => {
    const [member] = cluster.members as [EtcdServer];
    const mixed = await checkLockBackend(`etcd://${member.host}:${member.port},127.0.0.1:1`, { selfTest: false });
    expectRow(mixed, "etcd.health", "fail", "http://127.0.0.1:1");
    expect(mixed.reachable).toBe(true);
    expect((await checkLockBackend("etcd://127.0.0.1:1", { selfTest: false })).reachable).toBe(false);
  });
});
