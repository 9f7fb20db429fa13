export type { BenchRow, BenchTable, ScenarioGroup } from "./harness/index.js";
export { percentile, renderMarkdownTable, runInProcesses, runScenarioGroups, serveOneTask, sharedClockMs } from "./harness/index.js";
