import type { RowResult } from "../runner/row-result.js";

const HEADER = [
  "backend",
  "fault",
  "workers",
  "operations",
  "faults injected",
  "writes ok / rejected / failed",
  "stale writes",
  "stale accepted",
  "violations",
  "recovery (ms)",
  "row time (s)",
];

/** The matrix as a Markdown table, one line per row; violations, fenced overlaps and worker failures are listed below it. */
export function formatTable(rows: readonly RowResult[]): string {
  const lines = [`| ${HEADER.join(" | ")} |`, `|${HEADER.map((_, i) => (i < 2 ? " --- " : " ---: ")).join("|")}|`];
  for (const row of rows) {
    const cells = [
      row.backend,
      row.fault,
      row.workers,
      row.operations,
      row.faultsInjected,
      `${row.writesAccepted} / ${row.writesRejected} / ${row.writesFailed}`,
      row.staleWrites,
      row.staleWritesAccepted,
      row.fencedOverlaps.length === 0 ? row.violations.length : `${row.violations.length} (+${row.fencedOverlaps.length} fenced overlaps)`,
      row.recoveryMs === null ? "—" : Math.round(row.recoveryMs),
      (row.durationMs / 1_000).toFixed(1),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  const problems = rows.flatMap((row) => [
    ...row.violations.map((v) => `- ${row.backend} / ${row.fault}: **${v.kind}**: ${v.detail}`),
    ...row.fencedOverlaps.map((v) => `- ${row.backend} / ${row.fault}: overlap caught by fencing (no lower token accepted after a higher one): ${v.detail}`),
    ...row.workerFailures.map((failure) => `- ${row.backend} / ${row.fault}: worker failed: ${failure}`),
  ]);
  return [...lines, ...(problems.length === 0 ? [] : ["", ...problems])].join("\n");
}
