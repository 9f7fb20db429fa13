/** Stable machine-readable codes of every `LockError`. */
export const LockErrorCode = {
  LockTimeout: "LOCK_TIMEOUT",
  LockLost: "LOCK_LOST",
  InvalidArgument: "INVALID_ARGUMENT",
  InvalidConfig: "INVALID_CONFIG",
  BackendUnavailable: "BACKEND_UNAVAILABLE",
  QuorumNotReached: "QUORUM_NOT_REACHED",
  ProviderClosed: "PROVIDER_CLOSED",
  FencedOut: "FENCED_OUT",
  VersionConflict: "VERSION_CONFLICT",
  UnsupportedOperation: "UNSUPPORTED_OPERATION",
  PermitsMismatch: "PERMITS_MISMATCH",
  UpgradeRefused: "UPGRADE_REFUSED",
} as const;

export type LockErrorCode = (typeof LockErrorCode)[keyof typeof LockErrorCode];
