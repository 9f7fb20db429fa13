import { InvalidConfigError } from "@distlock/core";
import { type BackendOptionsSpec, type BackendSetting, backendSettings, type LockUrl, resolveBackendOptions } from "@distlock/core/driver";
import type { Etcd3 } from "etcd3";
import { DEFAULT_ETCD_LOCK_OPTIONS, type EtcdLockProviderOptions, type ResolvedEtcdLockOptions } from "./etcd-lock-provider-options.js";

/** Port etcd clients use when a URL names none. */
const DEFAULT_CLIENT_PORT = 2379;

const prefixSetting = backendSettings.text((value, field) => {
  if (typeof value !== "string" || value === "" || value.endsWith("/"))
    throw new InvalidConfigError(field, `must be a non-empty string without a trailing "/", got ${JSON.stringify(value)}`);
  return value;
});

const hostsSetting: BackendSetting<readonly string[]> = { check: checkHosts, parse: checkHosts };

const ETCD_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_ETCD_LOCK_OPTIONS> = {
  backend: "etcd",
  urlBackends: ["etcd"],
  urlSchemes: "etcd://h1:2379,h2:2379/<prefix> or etcds://…",
  ownOptions: ["client", "auth", "tls"],
  settings: {
    hosts: hostsSetting,
    prefix: prefixSetting,
    sessionTtlMs: backendSettings.duration(1),
    minTtlMs: backendSettings.duration(1),
    requestTimeoutMs: backendSettings.duration(1),
    recheckIntervalMs: backendSettings.duration(1),
    dialTimeoutMs: backendSettings.duration(1),
  },
  defaults: DEFAULT_ETCD_LOCK_OPTIONS,
  // The URL gives them by its host list and path.
  notParams: ["hosts", "prefix"],
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>`, `url.<param>`), and
 * applies the defaults; the URL's hosts, path, credentials and query parameters fill in what the options leave out.
 */
export function resolveEtcdLockOptions(options: EtcdLockProviderOptions = {}, optionsField = "options"): ResolvedEtcdLockOptions {
  const { url, holderLabel, settings, fieldOf } = resolveBackendOptions(ETCD_LOCK_OPTIONS, options, optionsField);
  const { client, auth, tls } = options;
  if (auth !== undefined && (typeof auth?.username !== "string" || typeof auth?.password !== "string")) {
    throw new InvalidConfigError(`${optionsField}.auth`, "must be { username: string, password: string }");
  }
  if (tls !== undefined && (typeof tls !== "object" || tls === null))
    throw new InvalidConfigError(`${optionsField}.tls`, "must be an object with ca, cert and key");
  if (tls?.key !== undefined && tls.cert === undefined)
    throw new InvalidConfigError(`${optionsField}.tls.cert`, `is needed together with ${optionsField}.tls.key`);
  if (client !== undefined && (typeof client !== "object" || typeof (client as Etcd3).kv?.txn !== "function")) {
    throw new InvalidConfigError(`${optionsField}.client`, "must be an Etcd3 client from the etcd3 package");
  }
  if (settings.sessionTtlMs < settings.minTtlMs) throw new InvalidConfigError(fieldOf("sessionTtlMs"), `must be at least minTtlMs (${settings.minTtlMs})`);
  return Object.freeze({
    ...settings,
    hosts: options.hosts === undefined && url !== undefined ? hostsOf(url) : settings.hosts,
    prefix: options.prefix === undefined && url !== undefined && url.path !== "" ? prefixSetting.check(url.path, "url.path") : settings.prefix,
    auth: auth ?? (url?.username === undefined ? undefined : { username: url.username, password: url.password ?? "" }),
    tls,
    client,
    holderLabel,
  });
}

function hostsOf(url: LockUrl): readonly string[] {
  const scheme = url.variant === "tls" ? "https" : "http";
  return Object.freeze(url.hosts.map(({ host, port }) => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_CLIENT_PORT}`));
}

function checkHosts(hosts: unknown, field: string): readonly string[] {
  if (!Array.isArray(hosts) || hosts.length === 0)
    throw new InvalidConfigError(field, "must be a non-empty array of client URLs such as http://127.0.0.1:2379");
  for (const host of hosts) {
    if (typeof host !== "string" || !/^https?:\/\/[^/\s]+$/.test(host))
      throw new InvalidConfigError(field, `"${String(host)}" is not an http:// or https:// client URL without a path`);
  }
  if (new Set(hosts.map((host: string) => host.startsWith("https://"))).size > 1)
    throw new InvalidConfigError(field, "mixes http:// and https:// members; use one scheme");
  return Object.freeze([...hosts]);
}
