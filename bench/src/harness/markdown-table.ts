import type { BenchTable } from "./bench-row.js";
import { formatNumber } from "./format-number.js";

/** A table as Markdown: one row per subject, every metric, and `<ratioOf> ÷ baseline` when the table names them. */
export function renderMarkdownTable(table: BenchTable): string {
  const columns = [...new Set(table.rows.flatMap((row) => Object.keys(row.metrics)))];
  const { ratioOf, baseline } = table;
  const withRatio = ratioOf !== undefined && baseline !== undefined;
  const base = withRatio ? table.rows.find((row) => row.subject === baseline)?.metrics[ratioOf] : undefined;
  const header = ["scenario", "subject", ...columns, ...(withRatio ? [`${ratioOf} ÷ ${baseline}`] : [])];
  const lines = [`### ${table.title}`, "", `| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of table.rows) {
    const cells = [row.scenario, row.subject, ...columns.map((c) => formatNumber(row.metrics[c]))];
    if (withRatio) {
      const value = row.metrics[ratioOf];
      cells.push(base === undefined || value === undefined || !Number.isFinite(value / base) ? "–" : `${(value / base).toFixed(2)}×`);
    }
    lines.push(`| ${cells.join(" | ")} |`);
  }
  if (table.notes !== undefined && table.notes.length > 0) lines.push("", ...table.notes);
  return lines.join("\n");
}
