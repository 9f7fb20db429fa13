import { providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

/** What `createLockProvider("redis://…")` calls: the config's options and URL are the provider's, errors name `config.<name>`. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): RedisLockProvider {
  return new RedisLockProvider(providerOptionsFromConfig(config) as RedisLockProviderOptions, "config");
}
