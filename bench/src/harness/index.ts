export type { BenchRow, BenchTable, ScenarioGroup } from "./bench-row.js";
export { renderMarkdownTable } from "./markdown-table.js";
export { runScenarioGroups } from "./run-scenario-groups.js";
export { percentile, sharedClockMs } from "./stats.js";
export { runInProcesses, serveOneTask } from "./worker-processes.js";
