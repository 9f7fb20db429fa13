import { InvalidConfigError, MAX_DURATION_MS } from "@distlock/core";
import type { RedlockLockSettings } from "./redlock-lock-provider-options.js";

const MAX_PREFIX_LENGTH = 64;

type Check = (value: unknown, field: string) => unknown;

const CHECKS: Readonly<Record<keyof RedlockLockSettings, Check>> = {
  prefix: checkPrefix,
  connectTimeoutMs: (value, field) => checkNumber(value, field, 1, MAX_DURATION_MS, true),
  nodeTimeoutMs: (value, field) => checkNumber(value, field, 1, MAX_DURATION_MS, true),
  driftFactor: (value, field) => checkNumber(value, field, 0, 0.5, false),
  driftFloorMs: (value, field) => checkNumber(value, field, 0, MAX_DURATION_MS, true),
  retryJitterMs: (value, field) => checkNumber(value, field, 1, MAX_DURATION_MS, true),
  fencing: checkBoolean,
  unsubscribeDelayMs: (value, field) => checkNumber(value, field, 0, MAX_DURATION_MS, true),
  renewBatchSize: (value, field) => checkNumber(value, field, 1, 100_000, true),
};

/** The names `resolveRedlockSettings` accepts. */
export const REDLOCK_SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(CHECKS));

/**
 * Validates the tunables that were given (without applying defaults); `field` prefixes the name in
 * errors, e.g. "options" → "options.nodeTimeoutMs". Under "url", values are query-parameter text. Unknown names are rejected.
 */
export function resolveRedlockSettings(given: Readonly<Record<string, unknown>>, field: string): Partial<RedlockLockSettings> {
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const check = CHECKS[name as keyof RedlockLockSettings];
    if (check === undefined)
      throw new InvalidConfigError(`${field}.${name}`, `is not an option of the redlock backend; use one of ${REDLOCK_SETTING_NAMES.join(", ")}`);
    settings[name] = check(value, `${field}.${name}`);
  }
  return settings as Partial<RedlockLockSettings>;
}

function checkNumber(value: unknown, field: string, min: number, max: number, integer: boolean): number {
  const number = typeof value === "string" && field.startsWith("url.") && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number) || (integer && !Number.isInteger(number)) || number < min || number > max) {
    throw new InvalidConfigError(field, `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
  }
  return number;
}

function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value === "boolean") return value;
  if (field.startsWith("url.") && (value === "true" || value === "false")) return value === "true";
  throw new InvalidConfigError(field, "must be true or false");
}

function checkPrefix(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[{}\s]/.test(value)) {
    throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without braces or whitespace`);
  }
  return value;
}
