/**
 * Helpers distlock's own backends share: timers, deadlines, lease arithmetic, tuning constants. NOT semver-stable:
 * anything here may change in any release. A backend written outside this repository uses `@distlock/core/driver`.
 */
export { absoluteModuleSpecifier, backendModulesFrom, loadBackendModules } from "../config/backend-modules.js";
export { deploymentChecksOf, resolveBackendFactory } from "../config/backend-registry.js";
export type { LockProviderFactory } from "../config/config-types.js";
export { resolveLockConfig } from "../config/lock-config.js";
export { parseLockUrl } from "../config/lock-url.js";
export type { DriverAcquireResult } from "../driver/driver-attempt.js";
export { firstHeld } from "../driver/first-held.js";
export { stampGrant } from "../driver/stamp-grant.js";
export { redactCredentials } from "../errors/redact-credentials.js";
export { MemoryLockDriver } from "../memory/memory-lock-driver.js";
export { DRIFT_FACTOR, DRIFT_FLOOR_MS, MAX_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS, READ_WRITE_NAME_PREFIX, RENEW_FRACTION } from "../options/defaults.js";
export { describeFirstIssue, type SchemaIssues } from "../options/schema-error.js";
export { validateAcquireOptions, validateKey } from "../options/validate-acquire.js";
export { compareKeys } from "../options/validate-list.js";
export { holderLabel } from "../owner/holder-label.js";
export { currentOwnerSecret, newOwnerSecret } from "../owner/owner-context.js";
export { conservativeDeadline, roundTtl } from "../provider/lease-math.js";
export { abortableSleep } from "../time/abortable-sleep.js";
export { CallDeadlines, type CallOutcomes } from "../time/call-deadlines.js";
export { Deadlines, type Expiring } from "../time/deadlines.js";
export { Latch, type LatchMode } from "../time/latch.js";
export { monotonicNow } from "../time/monotonic.js";
export { SweepTimer } from "../time/sweep-timer.js";
