export type { BackendName } from "./config/config-types.js";
export { createLockProvider } from "./config/create-lock-provider.js";
export { DEFAULT_LOCK_URL, type LockProviderConfig } from "./config/lock-config.js";
export { DEFAULT_ELECTION_RETRY_DELAY_MS, Election, type ElectionOptions, elect, type Leadership } from "./coordination/leader-election.js";
export { type RunExclusiveOptions, type RunExclusiveResult, runExclusive } from "./coordination/run-exclusive.js";
export type {
  AcquireAbortedEvent,
  AcquireErrorEvent,
  AcquireEventBase,
  AcquireGrantedEvent,
  AcquireStartEvent,
  AcquireTimeoutEvent,
  LockEventBase,
  LostEvent,
  ReleaseEvent,
  RenewEvent,
  RenewFailureEvent,
} from "./diagnostics/lock-channels.js";
export { LOCK_CHANNELS } from "./diagnostics/lock-channels.js";
export { BackendUnavailableError } from "./errors/backend-unavailable-error.js";
export { LockErrorCode } from "./errors/error-codes.js";
export { FencedOutError } from "./errors/fenced-out-error.js";
export { InvalidArgumentError } from "./errors/invalid-argument-error.js";
export { InvalidConfigError } from "./errors/invalid-config-error.js";
export { LockError } from "./errors/lock-error.js";
export { LockLostError } from "./errors/lock-lost-error.js";
export { LockTimeoutError } from "./errors/lock-timeout-error.js";
export { PermitsMismatchError } from "./errors/permits-mismatch-error.js";
export { ProviderClosedError } from "./errors/provider-closed-error.js";
export { type NodeOutcome, QuorumNotReachedError } from "./errors/quorum-not-reached-error.js";
export { UnsupportedOperationError } from "./errors/unsupported-operation-error.js";
export { UpgradeRefusedError } from "./errors/upgrade-refused-error.js";
export { VersionConflictError } from "./errors/version-conflict-error.js";
export type { MemoryWaitMode } from "./memory/memory-lock-driver.js";
export { MemoryLockProvider, type MemoryLockProviderOptions, memoryLockStore } from "./memory/memory-lock-provider.js";
export { MemoryLockStore } from "./memory/memory-lock-store.js";
export type { MemorySemaphoreStore } from "./memory/memory-semaphore-store.js";
export {
  DEFAULT_LIST_LIMIT,
  DEFAULT_TTL_MS,
  MAX_DURATION_MS,
  MAX_KEY_LENGTH,
  MAX_LIST_LIMIT,
  MAX_MULTI_KEYS,
  MAX_OWNER_LENGTH,
  MAX_PERMITS,
  MAX_READ_WRITE_NAME_LENGTH,
  MAX_READERS,
} from "./options/defaults.js";
export { runAsLockOwner } from "./owner/owner-context.js";
export type { DriverLockProviderOptions } from "./provider/driver-lock-provider.js";
export type {
  AcquireOptions,
  ListOptions,
  Lock,
  LockCapabilities,
  LockProvider,
  LockState,
  MultiLock,
  Permit,
  PermitAcquireOptions,
  PermitHolderState,
  ProviderCapabilities,
  ReadWriteAccess,
  ReadWriteAcquireOptions,
  ReadWriteHold,
  ReadWriteHolderState,
  ReadWriteLock,
  ReadWriteLockState,
  ReadWriteMode,
  Semaphore,
  SemaphoreOptions,
  SemaphoreState,
} from "./types.js";
export { withLock } from "./with-lock.js";
export { withLocks } from "./with-locks.js";
export { withPermit } from "./with-permit.js";
export { type ReadWriteWork, withReadLock, withWriteLock } from "./with-read-write-lock.js";
