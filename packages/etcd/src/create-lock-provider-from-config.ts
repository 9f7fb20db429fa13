import { InvalidConfigError, type LockProvider } from "@distlock/core";
import type { LockUrl, ResolvedLockConfig } from "@distlock/core/driver";
import { EtcdLockProvider } from "./etcd-lock-provider.js";
import type { EtcdLockProviderOptions } from "./etcd-lock-provider-options.js";

/** Port etcd clients use when a URL names none. */
const DEFAULT_CLIENT_PORT = 2379;
const NUMERIC_PARAMS = ["sessionTtlMs", "minTtlMs", "requestTimeoutMs", "recheckIntervalMs", "dialTimeoutMs"] as const;

/**
 * What `createLockProvider` calls for `etcd://` and `etcds://` URLs: `etcd://user:pass@h1:2379,h2:2379/<prefix>?sessionTtlMs=10000`.
 * Options of an object config (`{ url, tls, prefix, ... }`) override the URL's.
 */
export function createLockProviderFromConfig(config: ResolvedLockConfig): LockProvider {
  const fromUrl = config.url === undefined ? {} : optionsFromUrl(config.url);
  const options = { ...fromUrl, ...config.options } as EtcdLockProviderOptions;
  return new EtcdLockProvider(config.holderLabel === undefined ? options : { ...options, holderLabel: config.holderLabel });
}

function optionsFromUrl(url: LockUrl): EtcdLockProviderOptions {
  const scheme = url.variant === "tls" ? "https" : "http";
  const options: EtcdLockProviderOptions = {
    hosts: url.hosts.map(({ host, port }) => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_CLIENT_PORT}`),
  };
  if (url.path !== "") options.prefix = url.path;
  if (url.username !== undefined) options.auth = { username: url.username, password: url.password ?? "" };
  for (const [name, text] of url.params) {
    const field = NUMERIC_PARAMS.find((known) => known === name);
    if (field === undefined) throw new InvalidConfigError(`url.params.${name}`, `is not an etcd URL parameter; use one of ${NUMERIC_PARAMS.join(", ")}`);
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value)) throw new InvalidConfigError(`url.params.${name}`, `must be a number of milliseconds, got "${text}"`);
    options[field] = value;
  }
  return options;
}
