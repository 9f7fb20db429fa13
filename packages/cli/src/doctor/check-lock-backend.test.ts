import { describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectRow } from "./doctor.test-support.js";
import { formatDoctorReport } from "./format-doctor-report.js";
import { roundTripVerdict } from "./round-trip-verdict.js";

describe("checkLockBackend without backend checks of its own", () => {
  it("runs the self-test on memory and warns that it locks within this process only", async () => {
    const report = await checkLockBackend("memory:");
    expect(expectRow(report, "backend", "warn").found).toBe("memory: locks exclude only within this process");
    for (const check of ["self-test.acquire", "self-test.exclusion", "self-test.fencing", "self-test.round-trip", "self-test.cleanup"])
      expectRow(report, check, "ok");
    expect(report.summary).toEqual({ ok: 5, warn: 1, fail: 0 });
    expect(formatDoctorReport(report)).toMatch(/^WARN {2}backend\n {6}memory: locks exclude only within this process\n {6}→ use a backend with a server/m);
  });
});

describe("the round-trip verdict", () => {
  it("fails a p99 of a third of the lease (the watchdog renews at a third), warns from a tenth, else ok", () => {
    expect(roundTripVerdict([10, 10_000], 30_000).status).toBe("fail");
    expect(roundTripVerdict([10, 3_000], 30_000).status).toBe("warn");
    expect(roundTripVerdict([10, 2_999], 30_000)).toMatchObject({ status: "ok", found: expect.stringContaining("p50 10.0 ms, p99 2999.0 ms over 2 rounds") });
  });
});
