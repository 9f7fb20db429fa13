import { startZooKeeper, startZooKeeperEnsemble, type ZooKeeperEnsemble, type ZooKeeperServer } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";

// A backend that brings its own checks (`checkDeployment`, exported by @distlock/zookeeper) through the public hook,
// loaded the way a user loads it: --backend-module.
let single: ZooKeeperServer;
let capped: ZooKeeperServer;
let ensemble: ZooKeeperEnsemble;

beforeAll(async () => {
  [single, capped, ensemble] = await Promise.all([startZooKeeper(), startZooKeeper({ maxSessionTimeoutMs: 3_000 }), startZooKeeperEnsemble(3)]);
});
afterAll(async () => {
  await Promise.all([single, capped, ensemble].map((each) => each?.close()));
});

const doctor = async (url: string) => {
  const result = await runCli(["doctor", "--backend-module", "@distlock/zookeeper", "--url", url, "--json", "--strict"]);
  const report = JSON.parse(result.stdout) as { checks: Array<{ check: string; status: string; found: string }> };
  return { code: result.code, rows: report.checks.filter((row) => row.check.startsWith("zookeeper.")).map((row) => `${row.check} ${row.status}`), report };
};

describe("doctor on ZooKeeper (the backend's own checks)", () => {
  it("passes a 3-server ensemble, then runs the self-test", async () => {
    const three = await doctor(`${ensemble.url}/doctor?sessionTimeoutMs=4000`);
    expect(three.rows).toEqual(["zookeeper.session ok", "zookeeper.ensemble ok"]);
    expect(three.code).toBe(ExitCode.Ok);
    expect(three.report.checks.map((row) => row.check)).toContain("self-test.exclusion");
  });

  it("warns of a single server, and of a session timeout the server cut below the one asked", async () => {
    const alone = await doctor(`${single.url}/doctor?sessionTimeoutMs=4000`);
    expect(alone.rows).toEqual(["zookeeper.session ok", "zookeeper.ensemble warn"]);
    expect(alone.code).toBe(ExitCode.Warning);
    const cut = await doctor(`${capped.url}/doctor?sessionTimeoutMs=10000`);
    expect(cut.rows).toEqual(["zookeeper.session warn", "zookeeper.ensemble warn"]);
    expect(cut.report.checks[0]?.found).toMatch(/^session timeout 3000 ms granted of 10000 asked/);
  });
});
