import { DriverLockProvider } from "@distlock/core/driver";
import { createRedisLockDriver } from "./create-redis-lock-driver.js";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { resolveRedisLockOptions } from "./options/resolve-redis-lock-options.js";

/** Reentrant, fenced locks on Redis (single, Sentinel or Cluster), waking waiters by pub/sub. */
export class RedisLockProvider extends DriverLockProvider {
  /** Validates `options` (errors name `<optionsField>.<name>` or `url.<param>`) without connecting; connections are made lazily. */
  constructor(options: RedisLockProviderOptions, optionsField = "options") {
    const resolved = resolveRedisLockOptions(options, optionsField);
    super(createRedisLockDriver(resolved), { holderLabel: resolved.holderLabel });
  }
}
