import { DEFAULT_LOCK_URL, type LockProvider } from "@distlock/core";
import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import type { SqlLockProviderOptions } from "./options/sql-lock-provider-options.js";
import { SqlLockProvider } from "./sql-lock-provider.js";

/**
 * What `createLockProvider()` in core calls for the postgres, mysql and sqlite backends: the config's options and URL
 * are the provider's, errors name `config.<name>`; rejects at once if the URL's client library is missing.
 */
export function createLockProviderFromConfig(config: ResolvedLockConfig): Promise<LockProvider> {
  const options = providerOptionsFromConfig(config) as SqlLockProviderOptions;
  return SqlLockProvider.open(config.url === undefined && config.backend === "sqlite" ? { ...options, url: DEFAULT_LOCK_URL } : options, "config");
}
