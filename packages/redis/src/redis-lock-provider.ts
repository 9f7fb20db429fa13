import { DriverLockProvider } from "@distlock/core/driver";
import { createRedisLockDriver } from "./create-redis-lock-driver.js";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";

/** Reentrant, fenced locks on Redis (single, Sentinel or Cluster), waking waiters by pub/sub. */
export class RedisLockProvider extends DriverLockProvider {
  constructor(options: RedisLockProviderOptions) {
    super(createRedisLockDriver(options), { holderLabel: options.holderLabel });
  }
}
