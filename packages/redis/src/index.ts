export { createLockProviderFromConfig } from "./create-lock-provider-from-config.js";
export { DEFAULT_REDIS_LOCK_OPTIONS, type RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
export { RedisLockProvider } from "./redis-lock-provider.js";
