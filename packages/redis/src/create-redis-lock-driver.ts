import { InvalidConfigError } from "@distlock/core";
import { type LockUrl, parseLockUrl } from "@distlock/core/driver";
import type { Cluster, Redis } from "ioredis";
import { CONNECTION_PARAMS, createRedisConnection } from "./connection/create-redis-connection.js";
import { DEFAULT_REDIS_LOCK_OPTIONS, type RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { resolveRedisSettings } from "./options/resolve-redis-settings.js";
import { RedisLockDriver } from "./redis-lock-driver.js";

/** Validates `options` (naming the bad field) and builds the driver; connects lazily in the background. */
export function createRedisLockDriver(options: RedisLockProviderOptions): RedisLockDriver {
  if (typeof options !== "object" || options === null) throw new InvalidConfigError("options", "must be an object with a url or a client");
  const { url, client, holderLabel: _label, ...tunables } = options;
  const fromOptions = resolveRedisSettings(tunables, "options");
  if (url !== undefined && client !== undefined) throw new InvalidConfigError("options.client", "give either url or client, not both");
  if (client !== undefined) {
    if (!isRedisClient(client)) throw new InvalidConfigError("options.client", "must be an ioredis Redis or Cluster instance");
    const settings = { ...DEFAULT_REDIS_LOCK_OPTIONS, ...fromOptions };
    assertWaitSupported(client.isCluster, settings.waitForReplicas);
    return new RedisLockDriver({ client, ownsClient: false, settings, target: client.isCluster ? "the given ioredis cluster" : "the given ioredis client" });
  }
  if (url === undefined) throw new InvalidConfigError("options.url", "give a redis:// URL or an ioredis client");
  const lockUrl: LockUrl = typeof url === "string" ? parseLockUrl(url) : url;
  const urlTunables = Object.fromEntries([...lockUrl.params].filter(([name]) => !CONNECTION_PARAMS.includes(name)));
  const settings = { ...DEFAULT_REDIS_LOCK_OPTIONS, ...resolveRedisSettings(urlTunables, "url"), ...fromOptions };
  assertWaitSupported(lockUrl.variant === "cluster", settings.waitForReplicas);
  return new RedisLockDriver({ client: createRedisConnection(lockUrl, settings), ownsClient: true, settings, target: lockUrl.redacted });
}

function isRedisClient(value: unknown): value is Redis | Cluster {
  const candidate = value as Partial<Record<"evalsha" | "duplicate" | "subscribe", unknown>> | null;
  return (
    typeof candidate === "object" && candidate !== null && [candidate.evalsha, candidate.duplicate, candidate.subscribe].every((f) => typeof f === "function")
  );
}

function assertWaitSupported(isCluster: boolean, waitForReplicas: number): void {
  if (isCluster && waitForReplicas > 0) {
    throw new InvalidConfigError("options.waitForReplicas", "is not supported with Redis Cluster (WAIT cannot be routed to the slot's master); leave it at 0");
  }
}
