import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { MAX_DURATION_MS } from "../options/defaults.js";

/** One setting of a backend: how a value given as an option, or as the text of a URL query parameter, is checked. */
export interface BackendSetting<T> {
  /** Returns `value` if the setting can take it; else throws `InvalidConfigError` naming `field`. */
  check(value: unknown, field: string): T;
  /** The same for a URL query parameter's text. */
  parse(text: string, field: string): T;
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** A whole number from `min` to `max`. */
export function integerSetting(min: number, max: number): BackendSetting<number> {
  return numericSetting(min, max, true);
}

/** A number from `min` to `max`, fractions allowed. */
export function numberSetting(min: number, max: number): BackendSetting<number> {
  return numericSetting(min, max, false);
}

/** A whole number of milliseconds from `min` up to the longest delay a Node.js timer can keep. */
export function durationSetting(min: number): BackendSetting<number> {
  return integerSetting(min, MAX_DURATION_MS);
}

/** true or false; as a URL parameter, "true" or "false". */
export const booleanSetting: BackendSetting<boolean> = {
  check: checkBoolean,
  parse: (text, field) => checkBoolean(text === "true" ? true : text === "false" ? false : text, field),
};

/** A string that `check` accepts; a URL parameter gives it as it is. */
export function textSetting(check: (value: unknown, field: string) => string): BackendSetting<string> {
  return { check, parse: check };
}

function numericSetting(min: number, max: number, integer: boolean): BackendSetting<number> {
  const check = (value: unknown, field: string): number => {
    if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      throw new InvalidConfigError(field, `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
    }
    return value;
  };
  return { check, parse: (text, field) => check(DECIMAL.test(text) ? Number(text) : text, field) };
}

function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") throw new InvalidConfigError(field, "must be true or false");
  return value;
}
