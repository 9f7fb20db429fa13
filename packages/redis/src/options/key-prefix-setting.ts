import { InvalidConfigError } from "@distlock/core";
import { type BackendSetting, backendSettings } from "@distlock/core/driver";

const MAX_PREFIX_LENGTH = 64;

/** A key prefix: 1 to 64 characters without braces (they would break hash tags) or whitespace. */
export const keyPrefixSetting: BackendSetting<string> = backendSettings.text((value, field) => {
  if (typeof value !== "string" || value === "" || value.length > MAX_PREFIX_LENGTH || /[{}\s]/.test(value)) {
    throw new InvalidConfigError(field, `must be 1 to ${MAX_PREFIX_LENGTH} characters without braces or whitespace`);
  }
  return value;
});
