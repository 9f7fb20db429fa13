import type { BenchTable } from "./bench-row.js";

/** A table as Markdown: one row per subject, every metric, and `<ratioOf> ÷ baseline`. */
export function renderMarkdownTable(table: BenchTable): string {
  const columns = [...new Set(table.rows.flatMap((row) => Object.keys(row.metrics)))];
  const base = table.rows.find((row) => row.subject === table.baseline)?.metrics[table.ratioOf];
  const header = ["scenario", "subject", ...columns, `${table.ratioOf} ÷ ${table.baseline}`];
  const lines = [`### ${table.title}`, "", `| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of table.rows) {
    const value = row.metrics[table.ratioOf];
    const ratio = base === undefined || value === undefined ? "–" : `${(value / base).toFixed(2)}×`;
    lines.push(`| ${row.scenario} | ${row.subject} | ${columns.map((c) => format(row.metrics[c])).join(" | ")} | ${ratio} |`);
  }
  for (const note of table.notes ?? []) lines.push("", note);
  return lines.join("\n");
}

function format(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "–";
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 2);
}
