/** Exit codes of the `distlock` command (sysexits-style where one fits); a run's own code passes through. */
export const ExitCode = {
  Ok: 0,
  /** A lock error not listed below; `doctor`: a check failed. */
  Failure: 1,
  /** `doctor --strict`: no check failed, but one warned. */
  Warning: 2,
  /** Bad command line or invalid argument. */
  Usage: 64,
  /** The backend could not be reached. */
  Unavailable: 69,
  /** The lock was not acquired within --wait (or, with --no-wait, was held). */
  LockTimeout: 75,
  /** The lock was lost while the command ran; the command was terminated. */
  LockLost: 76,
  /** Invalid configuration (URL, backend). */
  Config: 78,
} as const;
