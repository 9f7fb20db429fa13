import { InvalidConfigError } from "@distlock/core";
import { type LockUrl, parseLockUrl } from "@distlock/core/driver";
import { createNodesFromClients, createNodesFromUrl } from "./nodes/create-redlock-nodes.js";
import { DEFAULT_REDLOCK_LOCK_OPTIONS, type RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { resolveRedlockSettings } from "./options/resolve-redlock-settings.js";
import { NodeSet } from "./quorum/node-set.js";
import { RedlockLockDriver } from "./redlock-lock-driver.js";

/** URL parameters that belong to the connection, not to the provider. */
const CONNECTION_PARAMS: readonly string[] = Object.freeze(["tls"]);

/** Validates `options` (naming the bad field) and builds the driver; connects lazily in the background. */
export function createRedlockLockDriver(options: RedlockLockProviderOptions): RedlockLockDriver {
  if (typeof options !== "object" || options === null) throw new InvalidConfigError("options", "must be an object with a url or clients");
  const { url, clients, holderLabel: _label, ...tunables } = options;
  const fromOptions = resolveRedlockSettings(tunables, "options");
  if (url !== undefined && clients !== undefined) throw new InvalidConfigError("options.clients", "give either url or clients, not both");
  if (clients !== undefined) {
    const settings = { ...DEFAULT_REDLOCK_LOCK_OPTIONS, ...fromOptions };
    return new RedlockLockDriver({ nodes: new NodeSet(createNodesFromClients(clients, settings)), settings });
  }
  if (url === undefined) throw new InvalidConfigError("options.url", "give a redlock://h1:p1,h2:p2,... URL or a list of ioredis clients");
  const lockUrl: LockUrl = typeof url === "string" ? parseLockUrl(url) : url;
  const tls = lockUrl.params.get("tls");
  if (tls !== null) throw new InvalidConfigError("url.tls", "is not supported by the redlock backend yet; pass TLS-enabled ioredis clients as options.clients");
  const urlTunables = Object.fromEntries([...lockUrl.params].filter(([name]) => !CONNECTION_PARAMS.includes(name)));
  const settings = { ...DEFAULT_REDLOCK_LOCK_OPTIONS, ...resolveRedlockSettings(urlTunables, "url"), ...fromOptions };
  return new RedlockLockDriver({ nodes: new NodeSet(createNodesFromUrl(lockUrl, settings)), settings });
}
