import { InvalidConfigError } from "@distlock/core";
import type { ResolvedLockConfig } from "@distlock/core/driver";
import { resolveRedlockSettings } from "./options/resolve-redlock-settings.js";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

/** What `createLockProvider("redlock://…")` calls; config options and URL parameters are the provider's tunables. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): RedlockLockProvider {
  if (config.url === undefined) throw new InvalidConfigError("config.url", "the redlock backend needs a url such as redlock://h1:6379,h2:6379,h3:6379");
  const { clients, ...tunables } = config.options;
  resolveRedlockSettings(tunables, "config");
  return new RedlockLockProvider({ ...tunables, clients: clients as never, url: config.url, holderLabel: config.holderLabel });
}
