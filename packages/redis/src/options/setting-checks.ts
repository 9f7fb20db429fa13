import { InvalidConfigError } from "@distlock/core";

/** Checks one setting; `field` names it in errors (e.g. "options.prefix", "url.prefix"). Returns the value to keep. */
export type SettingCheck = (value: unknown, field: string) => unknown;

const MAX_PREFIX_LENGTH = 64;

/**
 * Validates the settings that were given (without applying defaults) against a table of checks;
 * `field` prefixes each name in errors. Unknown names are rejected, listing the known ones.
 */
export function validateSettings<T>(
  given: Readonly<Record<string, unknown>>,
  checks: Readonly<Record<keyof T, SettingCheck>>,
  field: string,
  backend: string,
): Partial<T> {
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const check = (checks as Record<string, SettingCheck | undefined>)[name];
    if (check === undefined)
      throw new InvalidConfigError(`${field}.${name}`, `is not an option of the ${backend} backend; use one of ${Object.keys(checks).join(", ")}`);
    settings[name] = check(value, `${field}.${name}`);
  }
  return settings as Partial<T>;
}

/** A number from `min` to `max` (an integer unless `integer` is false); under "url." the query-parameter text is parsed. */
export function numberSetting(min: number, max: number, integer = true): SettingCheck {
  return (value, field) => {
    const number = typeof value === "string" && field.startsWith("url.") && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (typeof number !== "number" || !Number.isFinite(number) || (integer && !Number.isInteger(number)) || number < min || number > max) {
      throw new InvalidConfigError(field, `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
    }
    return number;
  };
}

/** true or false; under "url." also the text "true"/"false". */
export const booleanSetting: SettingCheck = (value, field) => {
  if (typeof value === "boolean") return value;
  if (field.startsWith("url.") && (value === "true" || value === "false")) return value === "true";
  throw new InvalidConfigError(field, "must be true or false");
};

/** A key prefix: 1 to 64 characters without braces (they would break hash tags) or whitespace. */
export const prefixSetting: SettingCheck = (value, field) => {
  if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[{}\s]/.test(value)) {
    throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without braces or whitespace`);
  }
  return value;
};
