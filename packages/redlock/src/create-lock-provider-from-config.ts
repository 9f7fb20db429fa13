import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import type { RedlockLockProviderOptions } from "./options/redlock-lock-provider-options.js";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

/** What `createLockProvider("redlock://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): RedlockLockProvider {
  return new RedlockLockProvider(providerOptionsFromConfig(config) as RedlockLockProviderOptions, "config");
}
