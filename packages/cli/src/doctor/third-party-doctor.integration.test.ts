import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli-process.test-support.js";
import { ExitCode } from "../exit-codes.js";

const backend = fileURLToPath(new URL("../../test/fixtures/locks-only-backend.mjs", import.meta.url));

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
});
