import type { ResolvedEtcdLockOptions } from "../options/etcd-lock-provider-options.js";
import { perAttemptDeadline } from "./per-attempt-deadline.js";

/** What distlock passes with each unary call: undefined leaves the client's own default call options in force. */
export type CallOptions = { readonly deadline: number } | undefined;

/** The resolved options with the call options decided from them once: what every part of a driver is built with. */
export type EtcdDriverSettings = ResolvedEtcdLockOptions & { readonly callOptions: CallOptions };

/**
 * `options` with their call options. A client the provider creates gives every attempt a deadline through its
 * `defaultCallOptions` (`createEtcdClient`), so its calls pass none (etcd3 would merge the two objects on every attempt);
 * a client the caller brought gets the per-attempt deadline passed with each call.
 */
export function driverSettings(options: ResolvedEtcdLockOptions): EtcdDriverSettings {
  return { ...options, callOptions: options.client === undefined ? undefined : perAttemptDeadline(options.requestTimeoutMs) };
}
