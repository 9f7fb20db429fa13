export { checkHistory, peakPermitsHeld } from "./checker/check-history.js";
export { checkMultiKeyHistory, type MultiKeyCheckOptions } from "./checker/check-multi-key.js";
export { type CheckOptions, DEFAULT_CHECK_OPTIONS } from "./checker/check-options.js";
export type { Violation, ViolationKind } from "./checker/violation.js";
export { FenceServers } from "./fence/fence-servers.js";
export type { FencedResource, FenceKind, FenceServer, FenceTarget, FenceWrite } from "./fence/fenced-resource.js";
export { openFencedResource } from "./fence/open-fenced-resource.js";
export { type DeadHolderKeysEvent, EVERYONE, type FaultEvent, type HistoryEvent, machineNow, toMachineTime } from "./history/history-event.js";
export {
  BACKEND_FAULTS,
  BACKEND_NAMES,
  type BackendFixture,
  type BackendName,
  faultsOf,
  MULTI_KEY_FAULTS,
  SEMAPHORE_FAULTS,
  startBackend,
} from "./matrix/backend-fixture.js";
export { FAULT_INJECTORS, type FaultInjector } from "./matrix/fault-injectors.js";
export { FAULT_NAMES, type FaultName } from "./matrix/fault-name.js";
export { formatTable, rowName } from "./matrix/format-table.js";
export { PRIMITIVES, type Primitive } from "./matrix/primitive.js";
export { type MatrixOptions, runMatrix } from "./matrix/run-matrix.js";
export { HistoryLog } from "./runner/history-log.js";
export type { MultiKeyRowStats, RowResult, SemaphoreRowStats } from "./runner/row-result.js";
export type { RowRun } from "./runner/row-run.js";
export { DEFAULT_ROW_SETTINGS, LONG_ROW_SETTINGS, type RowSettings } from "./runner/row-settings.js";
export { type RowSubject, runRow } from "./runner/run-row.js";
export { WorkerProcess, workerScriptPath } from "./runner/worker-process.js";
