import { MAX_DURATION_MS } from "@distlock/core";
import { booleanSetting, numberSetting, prefixSetting, type SettingCheck, validateSettings } from "@distlock/redis/internal";
import type { RedlockLockSettings } from "./redlock-lock-provider-options.js";

const CHECKS: Readonly<Record<keyof RedlockLockSettings, SettingCheck>> = {
  prefix: prefixSetting,
  connectTimeoutMs: numberSetting(1, MAX_DURATION_MS),
  nodeTimeoutMs: numberSetting(1, MAX_DURATION_MS),
  driftFactor: numberSetting(0, 0.5, false),
  driftFloorMs: numberSetting(0, MAX_DURATION_MS),
  retryJitterMs: numberSetting(1, MAX_DURATION_MS),
  fencing: booleanSetting,
  unsubscribeDelayMs: numberSetting(0, MAX_DURATION_MS),
  renewBatchSize: numberSetting(1, 100_000),
  waiterLeaseMs: numberSetting(30, MAX_DURATION_MS),
};

/** The names `resolveRedlockSettings` accepts. */
export const REDLOCK_SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(CHECKS));

/**
 * Validates the tunables that were given (without applying defaults); `field` prefixes the name in
 * errors, e.g. "options" → "options.nodeTimeoutMs". Under "url", values are query-parameter text. Unknown names are rejected.
 */
export function resolveRedlockSettings(given: Readonly<Record<string, unknown>>, field: string): Partial<RedlockLockSettings> {
  return validateSettings<RedlockLockSettings>(given, CHECKS, field, "redlock");
}
