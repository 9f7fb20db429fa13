import { type BackendOptionsSpec, backendSettings, InvalidConfigError, type LockUrl, resolveBackendOptions } from "@distlock/core/driver";
import { lockBackend } from "../lock-backend.js";
import {
  DEFAULT_NATS_LOCK_OPTIONS,
  type NatsCredentials,
  type NatsLockProviderOptions,
  type NatsTlsOptions,
  type ResolvedNatsLockOptions,
} from "./nats-lock-provider-options.js";

/** Port NATS clients use when a URL names none. */
const DEFAULT_CLIENT_PORT = 4222;
/** A JetStream bucket name: it becomes part of a stream name. */
const BUCKET_NAME = /^[-\w]{1,64}$/;
const STORAGE_KINDS = ["file", "memory"];

const bucketSetting = backendSettings.text((value, field) => {
  if (typeof value !== "string" || !BUCKET_NAME.test(value)) {
    throw new InvalidConfigError(field, "must be 1 to 64 letters, digits, '-' or '_' (a JetStream bucket name)");
  }
  return value;
});

const NATS_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_NATS_LOCK_OPTIONS> = {
  backend: "nats",
  urlBackends: ["nats"],
  // Read `nats://` even where nobody registered the backend (a provider constructed directly).
  schemes: lockBackend.schemes,
  urlSchemes: "nats://h1:4222,h2:4222/<bucket>",
  ownOptions: ["user", "pass", "token", "tls"],
  ownParams: ["tls"],
  notParams: ["bucket"],
  settings: {
    bucket: bucketSetting,
    replicas: backendSettings.integer(1, 5),
    storage: backendSettings.text((value, field) => {
      if (typeof value !== "string" || !STORAGE_KINDS.includes(value)) throw new InvalidConfigError(field, `must be one of ${STORAGE_KINDS.join(", ")}`);
      return value;
    }),
    connectTimeoutMs: backendSettings.duration(1),
    commandTimeoutMs: backendSettings.duration(1),
  },
  defaults: DEFAULT_NATS_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>` for an option,
 * `url.<param>` for a URL query parameter), and applies the defaults; the URL's hosts, path, user info and query
 * parameters fill in what the options leave out.
 */
export function resolveNatsLockOptions(options: NatsLockProviderOptions, optionsField = "options"): ResolvedNatsLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(NATS_LOCK_OPTIONS, options, optionsField);
  if (url === undefined) throw new InvalidConfigError(`${optionsField}.url`, "give the servers' URL, e.g. nats://127.0.0.1:4222/locks");
  const bucket = options.bucket === undefined && url.path !== "" ? bucketSetting.check(url.path, "url.path") : settings.bucket;
  return Object.freeze({
    ...settings,
    bucket,
    servers: Object.freeze(url.hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_CLIENT_PORT}`)),
    credentials: credentialsOf(options, url, optionsField),
    tls: tlsOf(options.tls, url, optionsField),
    holderLabel,
  });
}

function credentialsOf(options: NatsLockProviderOptions, url: LockUrl, optionsField: string): NatsCredentials {
  const { user, pass, token } = options;
  for (const [name, value] of Object.entries({ user, pass, token })) {
    if (value !== undefined && (typeof value !== "string" || value === ""))
      throw new InvalidConfigError(`${optionsField}.${name}`, "must be a non-empty string");
  }
  if (token !== undefined) {
    if (user !== undefined || url.username !== undefined) throw new InvalidConfigError(`${optionsField}.token`, "give a token or a user, not both");
    return { kind: "token", token };
  }
  if (pass !== undefined && user === undefined) throw new InvalidConfigError(`${optionsField}.user`, `is needed together with ${optionsField}.pass`);
  if (user !== undefined) return { kind: "user", user, pass: pass ?? "" };
  if (url.username !== undefined) return { kind: "user", user: url.username, pass: url.password ?? "" };
  return { kind: "none" };
}

function tlsOf(tls: NatsLockProviderOptions["tls"], url: LockUrl, optionsField: string): NatsTlsOptions | undefined {
  const field = `${optionsField}.tls`;
  if (tls === undefined) {
    const param = url.params.get("tls");
    if (param === null || param === "false") return undefined;
    if (param === "true") return Object.freeze({});
    throw new InvalidConfigError("url.tls", "must be true or false");
  }
  if (tls === false) return undefined;
  if (tls === true) return Object.freeze({});
  if (typeof tls !== "object" || tls === null || Array.isArray(tls))
    throw new InvalidConfigError(field, "must be true, false or { caFile, certFile, keyFile }");
  for (const name of Object.keys(tls)) {
    const value = (tls as Record<string, unknown>)[name];
    if (!["caFile", "certFile", "keyFile"].includes(name))
      throw new InvalidConfigError(`${field}.${name}`, "is not a TLS option; use caFile, certFile, keyFile");
    if (typeof value !== "string" || value === "") throw new InvalidConfigError(`${field}.${name}`, "must be a file path");
  }
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) throw new InvalidConfigError(`${field}.certFile`, "certFile and keyFile go together");
  return Object.freeze({ ...tls });
}
