export { type ContendedRunOptions, type ContendedRunResult, contendedRun } from "./contended-run.js";
export { type MetricsServer, sampleValue, startMetricsServer } from "./metrics-server.js";
