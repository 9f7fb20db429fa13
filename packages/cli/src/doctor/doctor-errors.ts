import { LockError } from "@distlock/core";
import { redactCredentials } from "@distlock/core/internal";

/** Lock errors that mean the backend is not there, as opposed to a check that failed. */
export function isUnreachable(error: unknown): boolean {
  return LockError.is(error) && (error.code === "BACKEND_UNAVAILABLE" || error.code === "QUORUM_NOT_REACHED");
}

/** One line about an error, without credentials. */
export function describeError(error: unknown): string {
  const text = LockError.is(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  return redactCredentials(text);
}
