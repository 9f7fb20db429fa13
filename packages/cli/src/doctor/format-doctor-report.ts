import type { CheckResult, DoctorReport } from "./doctor-report.js";

const MARK: Record<CheckResult["status"], string> = { ok: "ok  ", warn: "WARN", fail: "FAIL" };

/** The report as text: a header, one block per check (status, check, target, what was found, what to change), a summary line. */
export function formatDoctorReport(report: DoctorReport): string {
  const lines = [`distlock doctor  backend ${report.backend}  ${report.url}`, ""];
  for (const row of report.checks) {
    lines.push(`${MARK[row.status]}  ${row.check}${row.target === undefined ? "" : `  [${row.target}]`}`);
    lines.push(`      ${row.found}`);
    if (row.change !== undefined) lines.push(`      → ${row.change}`);
  }
  const { ok, warn, fail } = report.summary;
  lines.push("", `${ok} ok, ${warn} warning${warn === 1 ? "" : "s"}, ${fail} failed${report.reachable ? "" : "; the backend could not be reached"}`);
  return lines.join("\n");
}
