import { MAX_DURATION_MS } from "@distlock/core";
import type { RedisLockSettings } from "./redis-lock-provider-options.js";
import { numberSetting, prefixSetting, type SettingCheck, validateSettings } from "./setting-checks.js";

const CHECKS: Readonly<Record<keyof RedisLockSettings, SettingCheck>> = {
  prefix: prefixSetting,
  connectTimeoutMs: numberSetting(1, MAX_DURATION_MS),
  commandTimeoutMs: numberSetting(1, MAX_DURATION_MS),
  unsubscribeDelayMs: numberSetting(0, MAX_DURATION_MS),
  waiterLeaseMs: numberSetting(30, MAX_DURATION_MS),
  renewBatchSize: numberSetting(1, 100_000),
  waitForReplicas: numberSetting(0, 1_000),
  waitForReplicasTimeoutMs: numberSetting(1, MAX_DURATION_MS),
};

/** The names `resolveRedisSettings` accepts. */
export const REDIS_SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(CHECKS));

/**
 * Validates the tunables that were given (without applying defaults); `field` prefixes the name in
 * errors, e.g. "options" → "options.prefix". Under "url", values are query-parameter text. Unknown names are rejected.
 */
export function resolveRedisSettings(given: Readonly<Record<string, unknown>>, field: string): Partial<RedisLockSettings> {
  return validateSettings<RedisLockSettings>(given, CHECKS, field, "redis");
}
