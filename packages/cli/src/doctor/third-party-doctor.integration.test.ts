import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";

const backend = fileURLToPath(new URL("../../test/fixtures/locks-only-backend.mjs", import.meta.url));
const checkedBackend = fileURLToPath(new URL("../../test/fixtures/checked-backend.mjs", import.meta.url));
const SELF_TEST = ["self-test.acquire ok", "self-test.exclusion ok", "self-test.fencing ok", "self-test.round-trip ok", "self-test.cleanup ok"];
const rowsOf = (stdout: string) =>
  (JSON.parse(stdout) as { checks: Array<{ check: string; status: string }> }).checks.map((row) => `${row.check} ${row.status}`);

describe("distlock doctor on a backend loaded with --backend-module", () => {
  it("says it has no deployment checks for it and runs the self-test through the public API", async () => {
    const result = await runCli(["doctor", "--backend-module", backend, "--url", "locks-only:x", "--json"]);
    expect(result.code).toBe(ExitCode.Ok);
    const report = JSON.parse(result.stdout);
    expect(report.checks.map((row: { check: string; status: string }) => `${row.check} ${row.status}`)).toEqual([
      "backend ok",
      "self-test.acquire ok",
      "self-test.exclusion ok",
      "self-test.fencing ok",
      "self-test.round-trip ok",
      "self-test.cleanup ok",
    ]);
    expect(report.checks[0].found).toBe("locks-only: no deployment checks for this backend yet; the live self-test below still runs");
  });

  it("runs the checks a backend module brings (checkDeployment) before the self-test, with their statuses and exit codes", async () => {
    const doctor = (path: string, ...flags: string[]) => runCli(["doctor", "--backend-module", checkedBackend, "--url", `checked:${path}`, "--json", ...flags]);
    const sound = await doctor("sound");
    expect(sound.code).toBe(ExitCode.Ok);
    expect(rowsOf(sound.stdout)).toEqual(["checked.replication ok", ...SELF_TEST]);
    expect(JSON.parse(sound.stdout).checks[0]).toEqual({
      check: "checked.replication",
      target: "store-1",
      status: "ok",
      found: "2 replicas acknowledge every write",
    });
    const risky = await doctor("risky", "--strict");
    expect(risky.code).toBe(ExitCode.Warning);
    expect(rowsOf(risky.stdout)).toEqual(["checked.replication ok", "checked.persistence warn", ...SELF_TEST]);
    expect(JSON.parse(risky.stdout).checks[1].change).toBe("turn on the journal");
    const broken = await doctor("broken");
    expect(broken.code).toBe(ExitCode.Failure);
    expect(rowsOf(broken.stdout)).toEqual(["checked.replication fail", ...SELF_TEST]);
    const crashing = await doctor("crashing");
    expect(crashing.code).toBe(ExitCode.Failure);
    expect(rowsOf(crashing.stdout)).toEqual(["checked.checks fail", ...SELF_TEST]);
    expect(JSON.parse(crashing.stdout).checks[0].found).toBe("the backend's own checks failed to run: the store did not answer its status request");
  });
});
