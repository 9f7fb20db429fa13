import { BackendUnavailableError, LockError } from "@distlock/core";
import { redactCredentials } from "@distlock/core/internal";
import {
  ClientClosedError,
  EtcdAuthenticationFailedError,
  EtcdPermissionDeniedError,
  GRPCDeadlineExceededError,
  GRPCUnauthenticatedError,
  GRPCUnavailableError,
} from "etcd3";

/** A driver failure as the error callers see: distlock errors and aborts pass, etcd errors become `BackendUnavailableError` with a message saying what to check. */
export function toBackendError(operation: string, error: unknown, hosts: readonly string[]): unknown {
  if (LockError.is(error) || (error instanceof Error && error.name === "AbortError")) return error;
  const where = hosts.join(",");
  const detail = error instanceof Error ? redactCredentials(error.message || error.name) : String(error);
  let problem = `${operation} failed (${detail})`;
  if (error instanceof GRPCUnavailableError || error instanceof GRPCDeadlineExceededError)
    problem = `${operation} got no answer from ${where} (${detail}); check that etcd runs there and has a quorum`;
  else if (error instanceof EtcdAuthenticationFailedError || error instanceof GRPCUnauthenticatedError)
    problem = `${operation} was refused: the etcd username or password is wrong`;
  else if (error instanceof EtcdPermissionDeniedError) problem = `${operation} was refused: the etcd user lacks read/write permission on the lock prefix`;
  else if (error instanceof ClientClosedError) problem = `${operation} failed: the etcd client was closed`;
  return new BackendUnavailableError("etcd", problem, { cause: error });
}
