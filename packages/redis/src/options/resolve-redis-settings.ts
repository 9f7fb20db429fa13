import { InvalidConfigError, MAX_DURATION_MS } from "@distlock/core";
import type { RedisLockSettings } from "./redis-lock-provider-options.js";

const MAX_PREFIX_LENGTH = 64;

type Check = (value: unknown, field: string) => unknown;

const CHECKS: Readonly<Record<keyof RedisLockSettings, Check>> = {
  prefix: checkPrefix,
  connectTimeoutMs: (value, field) => checkInteger(value, field, 1, MAX_DURATION_MS),
  commandTimeoutMs: (value, field) => checkInteger(value, field, 1, MAX_DURATION_MS),
  unsubscribeDelayMs: (value, field) => checkInteger(value, field, 0, MAX_DURATION_MS),
  renewBatchSize: (value, field) => checkInteger(value, field, 1, 100_000),
  waitForReplicas: (value, field) => checkInteger(value, field, 0, 1_000),
  waitForReplicasTimeoutMs: (value, field) => checkInteger(value, field, 1, MAX_DURATION_MS),
};

/** The names `resolveRedisSettings` accepts. */
export const REDIS_SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(CHECKS));

/**
 * Validates the tunables that were given (without applying defaults); `field` prefixes the name in
 * errors, e.g. "options" → "options.prefix". Under "url", values are query-parameter text. Unknown names are rejected.
 */
export function resolveRedisSettings(given: Readonly<Record<string, unknown>>, field: string): Partial<RedisLockSettings> {
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const check = CHECKS[name as keyof RedisLockSettings];
    if (check === undefined)
      throw new InvalidConfigError(`${field}.${name}`, `is not an option of the redis backend; use one of ${REDIS_SETTING_NAMES.join(", ")}`);
    settings[name] = check(value, `${field}.${name}`);
  }
  return settings as Partial<RedisLockSettings>;
}

function checkInteger(value: unknown, field: string, min: number, max: number): number {
  const number = typeof value === "string" && field.startsWith("url.") && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    throw new InvalidConfigError(field, `must be an integer from ${min} to ${max}`);
  }
  return number;
}

function checkPrefix(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[{}\s]/.test(value)) {
    throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without braces or whitespace`);
  }
  return value;
}
