import { InvalidConfigError } from "@distlock/core";
import { type BackendOptionsSpec, backendSettings, resolveBackendOptions } from "@distlock/core/driver";
import type { Cluster, Redis } from "ioredis";
import { CONNECTION_PARAMS } from "../connection/create-redis-connection.js";
import { keyPrefixSetting } from "./key-prefix-setting.js";
import { DEFAULT_REDIS_LOCK_OPTIONS, type RedisLockProviderOptions, type ResolvedRedisLockOptions } from "./redis-lock-provider-options.js";

const REDIS_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_REDIS_LOCK_OPTIONS> = {
  backend: "redis",
  urlBackends: ["redis"],
  urlSchemes: "redis://, rediss://, redis+sentinel:// or redis+cluster://",
  ownOptions: ["client"],
  ownParams: CONNECTION_PARAMS,
  settings: {
    prefix: keyPrefixSetting,
    connectTimeoutMs: backendSettings.duration(1),
    commandTimeoutMs: backendSettings.duration(1),
    unsubscribeDelayMs: backendSettings.duration(0),
    waiterLeaseMs: backendSettings.duration(30),
    renewBatchSize: backendSettings.integer(1, 100_000),
    waitForReplicas: backendSettings.integer(0, 1_000),
    waitForReplicasTimeoutMs: backendSettings.duration(1),
    localPasses: backendSettings.integer(0, 1_000_000),
  },
  defaults: DEFAULT_REDIS_LOCK_OPTIONS,
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>`, `url.<param>`), and
 * applies the defaults; URL query parameters fill in what the options leave out.
 */
export function resolveRedisLockOptions(options: RedisLockProviderOptions, optionsField = "options"): ResolvedRedisLockOptions {
  const { url, holderLabel, settings, fieldOf } = resolveBackendOptions(REDIS_LOCK_OPTIONS, options, optionsField);
  const { client } = options;
  if (url !== undefined && client !== undefined) throw new InvalidConfigError(`${optionsField}.client`, "give either url or client, not both");
  if (client !== undefined && !isRedisClient(client)) throw new InvalidConfigError(`${optionsField}.client`, "must be an ioredis Redis or Cluster instance");
  if ((client?.isCluster ?? url?.variant === "cluster") && settings.waitForReplicas > 0) {
    throw new InvalidConfigError(fieldOf("waitForReplicas"), "is not supported with Redis Cluster (WAIT cannot be routed to the slot's master); leave it at 0");
  }
  if (client !== undefined) return Object.freeze({ ...settings, holderLabel, url: undefined, client });
  if (url === undefined) throw new InvalidConfigError(`${optionsField}.url`, "give a redis:// URL or an ioredis client");
  return Object.freeze({ ...settings, holderLabel, url, client: undefined });
}

function isRedisClient(value: unknown): value is Redis | Cluster {
  const candidate = value as Partial<Record<"evalsha" | "duplicate" | "subscribe", unknown>> | null;
  return (
    typeof candidate === "object" && candidate !== null && [candidate.evalsha, candidate.duplicate, candidate.subscribe].every((f) => typeof f === "function")
  );
}
