import { type BackendOptionsSpec, backendSettings, InvalidConfigError, resolveBackendOptions } from "@distlock/core/driver";
import { lockBackend } from "../lock-backend.js";
import { DEFAULT_LOCKD_LOCK_OPTIONS, type LockdLockProviderOptions, type ResolvedLockdLockOptions } from "./lockd-lock-provider-options.js";

const MAX_PREFIX_LENGTH = 64;

const LOCKD_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_LOCKD_LOCK_OPTIONS> = {
  backend: "lockd",
  urlBackends: ["lockd"],
  // Read `lockd://` even where nobody registered the backend (a provider constructed directly).
  schemes: lockBackend.schemes,
  urlSchemes: "lockd://host:port",
  ownOptions: [],
  settings: {
    prefix: backendSettings.text((value, field) => {
      if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[\u0000-\u001f]/.test(value)) {
        throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without control characters`);
      }
      return value;
    }),
    connectTimeoutMs: backendSettings.duration(1),
    commandTimeoutMs: backendSettings.duration(1),
  },
  defaults: DEFAULT_LOCKD_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>` for an option,
 * `url.<param>` for a URL query parameter), and applies the defaults; URL parameters fill in what options leave out.
 */
export function resolveLockdLockOptions(options: LockdLockProviderOptions, optionsField = "options"): ResolvedLockdLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(LOCKD_LOCK_OPTIONS, options, optionsField);
  if (url === undefined) throw new InvalidConfigError(`${optionsField}.url`, "give the server's URL, e.g. lockd://127.0.0.1:7070");
  const [server] = url.hosts;
  if (server?.port === undefined) throw new InvalidConfigError("url.port", `${url.scheme}: URLs need the server's port, e.g. lockd://127.0.0.1:7070`);
  if (url.path !== "") throw new InvalidConfigError("url.path", "lockd: URLs have no path; remove it");
  if (url.username !== undefined || url.password !== undefined)
    throw new InvalidConfigError("url.username", "lockd has no authentication; remove the user info");
  return Object.freeze({ ...settings, holderLabel, host: server.host, port: server.port });
}
