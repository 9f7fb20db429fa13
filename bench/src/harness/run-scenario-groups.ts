import type { BenchTable, ScenarioGroup } from "./bench-row.js";
import { renderMarkdownTable } from "./markdown-table.js";

/** Runs the groups one after another (never side by side: they would share CPU) and prints each table as Markdown. */
export async function runScenarioGroups(groups: readonly ScenarioGroup[], print: (text: string) => void = console.log): Promise<BenchTable[]> {
  const tables: BenchTable[] = [];
  for (const group of groups) {
    print(`## ${group.name}\n`);
    for (const table of await group.run()) {
      tables.push(table);
      print(`${renderMarkdownTable(table)}\n`);
    }
  }
  return tables;
}
