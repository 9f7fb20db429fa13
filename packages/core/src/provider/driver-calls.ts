import { BackendUnavailableError } from "../errors/backend-unavailable-error.js";
import { LockError } from "../errors/lock-error.js";
import { redactCredentials } from "../errors/redact-credentials.js";

/** A driver's failure as the caller sees it: distlock errors and aborts as they are, anything else BACKEND_UNAVAILABLE. */
export function driverFailure(backend: string, operation: string, error: unknown): unknown {
  if (LockError.is(error) || (error instanceof Error && error.name === "AbortError")) return error;
  return new BackendUnavailableError(backend, `${operation} failed (${describe(error)})`, { cause: error });
}

/** `run()`, failing with `driverFailure`. */
export async function callDriver<T>(backend: string, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw driverFailure(backend, operation, error);
  }
}

/** `call()`, with a synchronous throw turned into a rejection as an async function would. */
export function settledCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return call();
  } catch (error) {
    return Promise.reject(error);
  }
}

function describe(error: unknown): string {
  return redactCredentials(error instanceof Error ? error.message || error.name : String(error));
}
