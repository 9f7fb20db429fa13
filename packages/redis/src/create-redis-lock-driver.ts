import { createRedisConnection, createRespConnection } from "./connection/create-redis-connection.js";
import type { ResolvedRedisLockOptions } from "./options/redis-lock-provider-options.js";
import { RedisLockDriver } from "./redis-lock-driver.js";

/** The driver over the caller's client, or over connections to the URL that connect lazily in the background. */
export function createRedisLockDriver(options: ResolvedRedisLockOptions): RedisLockDriver {
  if (options.client !== undefined) {
    const target = options.client.isCluster ? "the given ioredis cluster" : "the given ioredis client";
    return new RedisLockDriver({ client: options.client, ownsClient: false, settings: options, target });
  }
  // On one server the lock calls take the lean connection; ioredis then connects only for pub/sub (its duplicates).
  const commands = createRespConnection(options.url, options);
  const client = createRedisConnection(options.url, options, commands !== undefined);
  return new RedisLockDriver({ client, commands, ownsClient: true, settings: options, target: options.url.redacted });
}
