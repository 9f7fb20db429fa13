import { createLockConnections } from "./connection/create-redis-connection.js";
import type { ResolvedRedisLockOptions } from "./options/redis-lock-provider-options.js";
import { RedisLockDriver } from "./redis-lock-driver.js";

/** The driver over the caller's client, or over connections to the URL that connect lazily in the background. */
export function createRedisLockDriver(options: ResolvedRedisLockOptions): RedisLockDriver {
  if (options.client !== undefined) {
    const target = options.client.isCluster ? "the given ioredis cluster" : "the given ioredis client";
    return new RedisLockDriver({ client: options.client, ownsClient: false, settings: options, target });
  }
  return new RedisLockDriver({ ...createLockConnections(options.url, options), ownsClient: true, settings: options, target: options.url.redacted });
}
