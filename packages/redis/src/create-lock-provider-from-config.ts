import { InvalidConfigError } from "@distlock/core";
import type { ResolvedLockConfig } from "@distlock/core/driver";
import { resolveRedisSettings } from "./options/resolve-redis-settings.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

/** What `createLockProvider("redis://…")` calls; config options and URL parameters are the provider's tunables. */
export function createLockProviderFromConfig(config: ResolvedLockConfig): RedisLockProvider {
  if (config.url === undefined) throw new InvalidConfigError("config.url", "the redis backend needs a url such as redis://127.0.0.1:6379");
  resolveRedisSettings(config.options, "config");
  return new RedisLockProvider({ ...config.options, url: config.url, holderLabel: config.holderLabel });
}
