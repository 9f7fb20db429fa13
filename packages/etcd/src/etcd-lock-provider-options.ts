import { type DriverLockProviderOptions, InvalidConfigError } from "@distlock/core";
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

/** Options after defaults and validation. */
export type ResolvedEtcdLockProviderOptions = Readonly<
  Required<Pick<EtcdLockProviderOptions, "hosts" | "prefix" | "sessionTtlMs" | "minTtlMs" | "requestTimeoutMs" | "recheckIntervalMs" | "dialTimeoutMs">> &
    Pick<EtcdLockProviderOptions, "client" | "auth" | "tls" | "holderLabel">
>;

export const DEFAULT_ETCD_LOCK_PROVIDER_OPTIONS = Object.freeze({
  hosts: Object.freeze(["http://127.0.0.1:2379"]),
  prefix: "distlock",
  sessionTtlMs: 30_000,
  minTtlMs: 2_000,
  requestTimeoutMs: 5_000,
  recheckIntervalMs: 10_000,
  dialTimeoutMs: 5_000,
});

const KNOWN_OPTIONS = new Set([
  "hosts",
  "client",
  "auth",
  "tls",
  "prefix",
  "sessionTtlMs",
  "minTtlMs",
  "requestTimeoutMs",
  "recheckIntervalMs",
  "dialTimeoutMs",
  "holderLabel",
]);
const DURATIONS = ["sessionTtlMs", "minTtlMs", "requestTimeoutMs", "recheckIntervalMs", "dialTimeoutMs"] as const;
const MAX_DURATION_MS = 2_147_483_647;

/** Applies defaults and checks every field; throws `InvalidConfigError` naming the first bad one. */
export function resolveEtcdLockProviderOptions(options: EtcdLockProviderOptions = {}): ResolvedEtcdLockProviderOptions {
  if (typeof options !== "object" || options === null) throw new InvalidConfigError("options", "must be an object");
  for (const field of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(field)) throw new InvalidConfigError(field, `is not an etcd option; use one of ${[...KNOWN_OPTIONS].join(", ")}`);
  }
  for (const field of DURATIONS) {
    const value = options[field];
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_DURATION_MS)) {
      throw new InvalidConfigError(field, `must be a positive number of milliseconds up to ${MAX_DURATION_MS}, got ${String(value)}`);
    }
  }
  const hosts = options.hosts ?? DEFAULT_ETCD_LOCK_PROVIDER_OPTIONS.hosts;
  if (!Array.isArray(hosts) || hosts.length === 0)
    throw new InvalidConfigError("hosts", "must be a non-empty array of client URLs such as http://127.0.0.1:2379");
  for (const host of hosts) {
    if (typeof host !== "string" || !/^https?:\/\/[^/\s]+$/.test(host))
      throw new InvalidConfigError("hosts", `"${String(host)}" is not an http:// or https:// client URL without a path`);
  }
  if (new Set(hosts.map((host) => host.startsWith("https://"))).size > 1)
    throw new InvalidConfigError("hosts", "mixes http:// and https:// members; use one scheme");
  const prefix = options.prefix ?? DEFAULT_ETCD_LOCK_PROVIDER_OPTIONS.prefix;
  if (typeof prefix !== "string" || prefix === "" || prefix.endsWith("/"))
    throw new InvalidConfigError("prefix", `must be a non-empty string without a trailing "/", got ${JSON.stringify(prefix)}`);
  if (options.auth !== undefined && (typeof options.auth?.username !== "string" || typeof options.auth?.password !== "string")) {
    throw new InvalidConfigError("auth", "must be { username: string, password: string }");
  }
  if (options.tls !== undefined && (typeof options.tls !== "object" || options.tls === null))
    throw new InvalidConfigError("tls", "must be an object with ca, cert and key");
  if (options.tls?.key !== undefined && options.tls.cert === undefined) throw new InvalidConfigError("tls.cert", "is needed together with tls.key");
  if (options.client !== undefined && (typeof options.client !== "object" || typeof (options.client as Etcd3).kv?.txn !== "function")) {
    throw new InvalidConfigError("client", "must be an Etcd3 client from the etcd3 package");
  }
  const resolved = { ...DEFAULT_ETCD_LOCK_PROVIDER_OPTIONS, ...withoutUndefined(options), hosts: Object.freeze([...hosts]), prefix };
  if (resolved.sessionTtlMs < resolved.minTtlMs) throw new InvalidConfigError("sessionTtlMs", `must be at least minTtlMs (${resolved.minTtlMs})`);
  return Object.freeze(resolved);
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
