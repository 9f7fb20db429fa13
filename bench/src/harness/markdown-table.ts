import type { BenchTable } from "./bench-row.js";
import { formatNumber } from "./format-number.js";

/** A table as Markdown: one row per subject, every metric, and `<ratioOf> ÷ baseline`. */
export function renderMarkdownTable(table: BenchTable): string {
  const columns = [...new Set(table.rows.flatMap((row) => Object.keys(row.metrics)))];
  const base = table.rows.find((row) => row.subject === table.baseline)?.metrics[table.ratioOf];
  const header = ["scenario", "subject", ...columns, `${table.ratioOf} ÷ ${table.baseline}`];
  const lines = [`### ${table.title}`, "", `| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of table.rows) {
    const value = row.metrics[table.ratioOf];
    const ratio = base === undefined || value === undefined || !Number.isFinite(value / base) ? "–" : `${(value / base).toFixed(2)}×`;
    lines.push(`| ${row.scenario} | ${row.subject} | ${columns.map((c) => formatNumber(row.metrics[c])).join(" | ")} | ${ratio} |`);
  }
  if (table.notes !== undefined && table.notes.length > 0) lines.push("", ...table.notes);
  return lines.join("\n");
}
