import type { BenchTable, ScenarioGroup } from "./bench-row.js";
import type { BenchScale } from "./bench-scale.js";
import { evaluateTarget, type TargetOutcome } from "./bench-target.js";
import { renderMarkdownTable } from "./markdown-table.js";

/** What one group measured, and how it did against its targets. */
export interface GroupResult {
  readonly name: string;
  readonly tables: readonly BenchTable[];
  readonly targets: readonly TargetOutcome[];
}

/** Runs the groups at `scale` one after another (never side by side: they would share CPU) and prints each table as Markdown. */
export async function runScenarioGroups(
  groups: readonly ScenarioGroup[],
  scale: BenchScale,
  print: (text: string) => void = console.log,
): Promise<GroupResult[]> {
  const results: GroupResult[] = [];
  for (const group of groups) {
    print(`## ${group.name}\n`);
    const tables: BenchTable[] = [];
    for (const table of await group.run(scale)) {
      tables.push(table);
      print(`${renderMarkdownTable(table)}\n`);
    }
    results.push({ name: group.name, tables, targets: (group.targets ?? []).map((target) => evaluateTarget(target, tables)) });
  }
  return results;
}
