export { type BackendModule, type LockProviderFactory, registerLockBackend, resolveBackendFactory } from "./config/backend-registry.js";
export { createLockProvider } from "./config/create-lock-provider.js";
export { DEFAULT_LOCK_URL, type LockProviderConfig, type ResolvedLockConfig, resolveLockConfig } from "./config/lock-config.js";
export { type BackendName, type HostPort, type LockUrl, parseLockUrl } from "./config/lock-url.js";
export { DEFAULT_ELECTION_RETRY_DELAY_MS, Election, type ElectionOptions, elect, type Leadership } from "./coordination/leader-election.js";
export { type RunExclusiveOptions, type RunExclusiveResult, runExclusive } from "./coordination/run-exclusive.js";
export type {
  DriverAcquireRequest,
  DriverAcquireResult,
  DriverGranted,
  DriverRefused,
  DriverRenewal,
  DriverWait,
  LockDriver,
  ReleaseWatch,
} from "./driver/lock-driver.js";
export { stampGrant } from "./driver/stamp-grant.js";
export { BackendUnavailableError } from "./errors/backend-unavailable-error.js";
export { LockErrorCode } from "./errors/error-codes.js";
export { InvalidArgumentError } from "./errors/invalid-argument-error.js";
export { InvalidConfigError } from "./errors/invalid-config-error.js";
export { LockError } from "./errors/lock-error.js";
export { LockLostError } from "./errors/lock-lost-error.js";
export { LockTimeoutError } from "./errors/lock-timeout-error.js";
export { ProviderClosedError } from "./errors/provider-closed-error.js";
export { type NodeOutcome, QuorumNotReachedError } from "./errors/quorum-not-reached-error.js";
export { redactCredentials } from "./errors/redact-credentials.js";
export { MemoryLockDriver, type MemoryWaitMode } from "./memory/memory-lock-driver.js";
export { MemoryLockProvider, type MemoryLockProviderOptions, memoryLockStore } from "./memory/memory-lock-provider.js";
export { MemoryLockStore } from "./memory/memory-lock-store.js";
export {
  DEFAULT_TTL_MS,
  DRIFT_FACTOR,
  DRIFT_FLOOR_MS,
  MAX_DURATION_MS,
  MAX_KEY_LENGTH,
  MAX_OWNER_LENGTH,
  MAX_POLL_INTERVAL_MS,
  MIN_POLL_INTERVAL_MS,
  RENEW_FRACTION,
} from "./options/defaults.js";
export { describeFirstIssue } from "./options/schema-error.js";
export { validateAcquireOptions, validateKey } from "./options/validate-acquire.js";
export { holderLabel } from "./owner/holder-label.js";
export { currentOwnerSecret, newOwnerSecret, runAsLockOwner } from "./owner/owner-context.js";
export { DriverLockProvider, type DriverLockProviderOptions } from "./provider/driver-lock-provider.js";
export { conservativeDeadline, roundTtl } from "./provider/lease-math.js";
export { abortableSleep } from "./time/abortable-sleep.js";
export { CallDeadlines, type CallOutcomes } from "./time/call-deadlines.js";
export { monotonicNow } from "./time/monotonic.js";
export type { AcquireOptions, Lock, LockCapabilities, LockProvider, LockState } from "./types.js";
export { withLock } from "./with-lock.js";
