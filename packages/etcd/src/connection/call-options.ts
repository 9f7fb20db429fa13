import { perAttemptDeadline } from "./per-attempt-deadline.js";

/** What distlock passes with each unary call: undefined leaves the client's own default call options in force. */
export type CallOptions = { readonly deadline: number } | undefined;

/**
 * A client the provider created gives every attempt a deadline through its `defaultCallOptions` (`createEtcdClient`), so
 * its calls pass none (etcd3 would merge the two objects on every attempt); a client the caller brought gets the
 * per-attempt deadline passed with each call.
 */
export function callOptionsFor(ownsClient: boolean, requestTimeoutMs: number): CallOptions {
  return ownsClient ? undefined : perAttemptDeadline(requestTimeoutMs);
}
