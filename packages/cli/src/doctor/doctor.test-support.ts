import { expect } from "vitest";
import type { CheckResult, CheckStatus, DoctorReport } from "./doctor-report.js";

/** The rows of `check` (one per target). */
export function rowsOf(report: DoctorReport, check: string): CheckResult[] {
  return report.checks.filter((row) => row.check === check);
}

/** The one row of `check`, asserting its status; a failed assertion prints the whole report. */
export function expectRow(report: DoctorReport, check: string, status: CheckStatus, target?: string): CheckResult {
  const rows = rowsOf(report, check).filter((row) => target === undefined || row.target === target);
  expect(
    rows.map((row) => row.status),
    JSON.stringify(report, null, 2),
  ).toEqual([status]);
  return rows[0] as CheckResult;
}

/** Asserts every row is `ok`, showing the ones that are not. */
export function expectAllOk(report: DoctorReport): void {
  expect(report.checks.filter((row) => row.status !== "ok")).toEqual([]);
  expect(report.reachable).toBe(true);
}
