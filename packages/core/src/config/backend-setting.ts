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
function integerSetting(min: number, max: number): BackendSetting<number> {
  return numericSetting(min, max, true);
}

/** A number from `min` to `max`, fractions allowed. */
function numberSetting(min: number, max: number): BackendSetting<number> {
  return numericSetting(min, max, false);
}

/** A whole number of milliseconds from `min` up to the longest delay a Node.js timer can keep. */
function durationSetting(min: number): BackendSetting<number> {
  return integerSetting(min, MAX_DURATION_MS);
}

/** true or false; as a URL parameter, "true" or "false". */
const booleanSetting: BackendSetting<boolean> = {
  check: checkBoolean,
  parse: (text, field) => checkBoolean(text === "true" ? true : text === "false" ? false : text, field),
};

/** A string that `check` accepts; a URL parameter gives it as it is. */
function textSetting(check: (value: unknown, field: string) => string): BackendSetting<string> {
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

/** The kinds of setting a backend's options are made of, for `BackendOptionsSpec.settings`. */
export const backendSettings: {
  /** A whole number from `min` to `max`. */
  readonly integer: (min: number, max: number) => BackendSetting<number>;
  /** A number from `min` to `max`, fractions allowed. */
  readonly number: (min: number, max: number) => BackendSetting<number>;
  /** A whole number of milliseconds from `min` up to the longest delay a Node.js timer can keep. */
  readonly duration: (min: number) => BackendSetting<number>;
  /** true or false; as a URL parameter, "true" or "false". */
  readonly boolean: BackendSetting<boolean>;
  /** A string that `check` accepts (it throws `InvalidConfigError` naming `field` otherwise); a URL parameter gives it as it is. */
  readonly text: (check: (value: unknown, field: string) => string) => BackendSetting<string>;
} = Object.freeze({ integer: integerSetting, number: numberSetting, duration: durationSetting, boolean: booleanSetting, text: textSetting });
