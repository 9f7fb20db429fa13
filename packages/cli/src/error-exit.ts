import { LockError } from "@distlock/core";
import { redactCredentials } from "@distlock/core/internal";
import { CliError } from "./cli-error.js";
import { ExitCode } from "./exit-codes.js";

const EXIT_BY_CODE: Record<string, number> = {
  LOCK_TIMEOUT: ExitCode.LockTimeout,
  LOCK_LOST: ExitCode.LockLost,
  INVALID_ARGUMENT: ExitCode.Usage,
  INVALID_CONFIG: ExitCode.Config,
  BACKEND_UNAVAILABLE: ExitCode.Unavailable,
  QUORUM_NOT_REACHED: ExitCode.Unavailable,
  PERMITS_MISMATCH: ExitCode.Usage,
  UNSUPPORTED_OPERATION: ExitCode.Config,
};

/** The one line and exit code an error ends the command with; never a stack trace or a password. */
export function describeFailure(error: unknown): { line: string; exitCode: number } {
  const message = redactCredentials(error instanceof Error ? error.message : String(error));
  if (error instanceof CliError) return { line: error.exitCode === ExitCode.Usage ? `${message} (see distlock --help)` : message, exitCode: error.exitCode };
  if (LockError.is(error)) return { line: `${error.code}: ${message}`, exitCode: EXIT_BY_CODE[error.code] ?? ExitCode.Failure };
  return { line: message, exitCode: ExitCode.Failure };
}
