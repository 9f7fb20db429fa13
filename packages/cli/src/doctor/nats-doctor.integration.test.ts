import { type NatsCluster, type NatsServer, startNats, startNatsCluster } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";

// A backend that brings its own checks (`checkDeployment`, exported by @distlock/nats) through the public hook, loaded
// the way a user loads it: --backend-module.
let server: NatsServer;
let cluster: NatsCluster;

beforeAll(async () => {
  [server, cluster] = await Promise.all([startNats(), startNatsCluster(3)]);
});
afterAll(async () => {
  await Promise.all([server, cluster].map((each) => each?.close()));
});

const doctor = async (url: string) => {
  const result = await runCli(["doctor", "--backend-module", "@distlock/nats", "--url", url, "--json", "--strict"]);
  const report = JSON.parse(result.stdout) as { checks: Array<{ check: string; status: string; found: string }> };
  return { code: result.code, rows: report.checks.filter((row) => row.check.startsWith("nats.")).map((row) => `${row.check} ${row.status}`), report };
};

describe("doctor on NATS (the backend's own checks)", () => {
  it("passes an R1 bucket on one server and an R3 bucket on three, then runs the self-test", async () => {
    const single = await doctor(`${server.url}/doctor-single`);
    expect(single.rows).toEqual(["nats.bucket ok", "nats.replicas ok", "nats.storage ok"]);
    expect(single.code).toBe(ExitCode.Ok);
    expect(single.report.checks.map((row) => row.check)).toContain("self-test.exclusion");
    const replicated = await doctor(`${cluster.url}/doctor-r3?replicas=3`);
    expect(replicated.rows).toEqual(["nats.bucket ok", "nats.replicas ok", "nats.storage ok"]);
  });

  it("warns of a single copy on a cluster URL and fails memory storage", async () => {
    const oneCopy = await doctor(`${cluster.url}/doctor-r1`);
    expect(oneCopy.rows).toEqual(["nats.bucket ok", "nats.replicas warn", "nats.storage ok"]);
    expect(oneCopy.code).toBe(ExitCode.Warning);
    const inMemory = await doctor(`${server.url}/doctor-memory?storage=memory`);
    expect(inMemory.rows).toEqual(["nats.bucket ok", "nats.replicas ok", "nats.storage fail"]);
    expect(inMemory.code).toBe(ExitCode.Failure);
  });

  it("fails the bucket check, naming the setting, when the bucket there has other settings than the URL asks", async () => {
    const memory = await doctor(`${server.url}/doctor-memory?storage=memory`);
    expect(memory.rows).toContain("nats.storage fail");
    const clash = await doctor(`${server.url}/doctor-memory`);
    expect(clash.rows).toEqual(["nats.bucket fail"]);
    expect(clash.report.checks[0]?.found).toMatch(/storage/);
    expect(clash.code).toBe(ExitCode.Failure);
  });
});
