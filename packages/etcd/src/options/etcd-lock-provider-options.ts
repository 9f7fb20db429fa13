import type { DriverLockProviderOptions } from "@distlock/core";
import type { LockUrl } from "@distlock/core/driver";
import type { Etcd3 } from "etcd3";

/** PEM material for `https://` endpoints. */
export interface EtcdTlsOptions {
  /** CA certificate(s) that signed the server certificates; the system roots when omitted. */
  ca?: string | Buffer;
  /** Client certificate chain for mutual TLS. */
  cert?: string | Buffer;
  /** Private key of `cert`. */
  key?: string | Buffer;
}

/** Options of `EtcdLockProvider`. */
export interface EtcdLockProviderOptions extends DriverLockProviderOptions {
  /**
   * `etcd://[user[:password]@]h1:p1,h2:p2/<prefix>?sessionTtlMs=…` or `etcds://…` (TLS): its hosts, path, credentials and
   * query parameters give `hosts`, `prefix`, `auth` and the durations below, unless those options are given as well.
   */
  url?: string | LockUrl;
  /** Client URLs of the etcd members; ignored when `client` is given. @default ["http://127.0.0.1:2379"] */
  hosts?: readonly string[];
  /** An etcd3 client you own (its hosts, auth and TLS are used as they are); the provider never closes it. */
  client?: Etcd3;
  /** Username and password for etcd's auth; ignored when `client` is given. */
  auth?: { username: string; password: string };
  /** TLS material for `https://` hosts; ignored when `client` is given. */
  tls?: EtcdTlsOptions;
  /** Key prefix: lock `k` lives under `<prefix>/k/`, the name `etcdctl lock` and Go's `concurrency.NewMutex` take. @default "distlock" */
  prefix?: string;
  /** TTL of the session lease shared by every hold whose `ttlMs` equals it; other TTLs get a lease per hold. @default 30_000 */
  sessionTtlMs?: number;
  /** The shortest lease the etcd server grants (`3/2 * election timeout`, rounded up to seconds); leases below it are raised. @default 2_000 */
  minTtlMs?: number;
  /** Bound on every request to etcd. @default 5_000 */
  requestTimeoutMs?: number;
  /** How long a waiter trusts its watch before it re-reads the queue anyway. @default 10_000 */
  recheckIntervalMs?: number;
  /** How long to wait for the first connection to a member (gRPC dial). @default 5_000 */
  dialTimeoutMs?: number;
}

/** The default of every option of `EtcdLockProviderOptions` that has one. */
export const DEFAULT_ETCD_LOCK_OPTIONS: Readonly<
  Required<Pick<EtcdLockProviderOptions, "hosts" | "prefix" | "sessionTtlMs" | "minTtlMs" | "requestTimeoutMs" | "recheckIntervalMs" | "dialTimeoutMs">>
> = Object.freeze({
  hosts: Object.freeze(["http://127.0.0.1:2379"]),
  prefix: "distlock",
  sessionTtlMs: 30_000,
  minTtlMs: 2_000,
  requestTimeoutMs: 5_000,
  recheckIntervalMs: 10_000,
  dialTimeoutMs: 5_000,
});

/** `EtcdLockProviderOptions` after validation: every default applied, and the URL's hosts, prefix and credentials taken. */
export type ResolvedEtcdLockOptions = typeof DEFAULT_ETCD_LOCK_OPTIONS & Readonly<Pick<EtcdLockProviderOptions, "client" | "auth" | "tls" | "holderLabel">>;
