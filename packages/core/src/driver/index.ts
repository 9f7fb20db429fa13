/**
 * The driver-author interface: what a backend package implements (`LockDriver`) and the core pieces it builds on.
 * Applications import from `@distlock/core`; this entry point changes with the backends, not with the contract.
 */
export { type BackendModule, type LockProviderFactory, registerLockBackend, resolveBackendFactory } from "../config/backend-registry.js";
export { type BackendSetting, booleanSetting, durationSetting, integerSetting, numberSetting, textSetting } from "../config/backend-setting.js";
export { type ResolvedLockConfig, resolveLockConfig } from "../config/lock-config.js";
export { type BackendName, type HostPort, type LockUrl, parseLockUrl } from "../config/lock-url.js";
export {
  type BackendOptionsSpec,
  providerOptionsFromConfig,
  type ResolvedBackendOptions,
  resolveBackendOptions,
} from "../config/resolve-backend-options.js";
export { redactCredentials } from "../errors/redact-credentials.js";
export { MemoryLockDriver } from "../memory/memory-lock-driver.js";
export { DRIFT_FACTOR, DRIFT_FLOOR_MS, MAX_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS, RENEW_FRACTION } from "../options/defaults.js";
export { describeFirstIssue, type SchemaIssues } from "../options/schema-error.js";
export { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
export { compareKeys } from "../options/validate-list.js";
export { holderLabel } from "../owner/holder-label.js";
export { currentOwnerSecret, newOwnerSecret } from "../owner/owner-context.js";
export { DriverLockProvider } from "../provider/driver-lock-provider.js";
export { conservativeDeadline, roundTtl } from "../provider/lease-math.js";
export { abortableSleep } from "../time/abortable-sleep.js";
export { CallDeadlines, type CallOutcomes } from "../time/call-deadlines.js";
export { Deadlines, type Expiring } from "../time/deadlines.js";
export { Latch, type LatchMode } from "../time/latch.js";
export { monotonicNow } from "../time/monotonic.js";
export { SweepTimer } from "../time/sweep-timer.js";
export { firstHeld } from "./first-held.js";
export type {
  DriverAcquireRequest,
  DriverAcquireResult,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  DriverWait,
  LockDriver,
  ReleaseWatch,
} from "./lock-driver.js";
export type { DriverPermitRequest, SemaphoreDriver } from "./semaphore-driver.js";
export { stampGrant } from "./stamp-grant.js";
