import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { AcquireOptions } from "../types.js";
import { acquireOptionsSchema } from "./acquire-options-schema.js";
import { MAX_KEY_LENGTH } from "./defaults.js";
import { describeFirstIssue } from "./schema-error.js";

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Throws `InvalidArgumentError` unless `key` is a usable lock key. */
export function validateKey(key: unknown): asserts key is string {
  if (typeof key !== "string") throw new InvalidArgumentError("key", `must be a string, got ${key === null ? "null" : typeof key}`);
  if (key.length === 0) throw new InvalidArgumentError("key", "must not be empty");
  if (key.length > MAX_KEY_LENGTH) throw new InvalidArgumentError("key", `must be at most ${MAX_KEY_LENGTH} characters, got ${key.length}`);
  if (CONTROL_CHARACTERS.test(key)) throw new InvalidArgumentError("key", "must not contain control characters");
}

/** Returns the options checked field by field; throws `InvalidArgumentError` naming the first bad field. */
export function validateAcquireOptions(options: unknown): AcquireOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object");
  const parsed = acquireOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const { field, problem } = describeFirstIssue(parsed.error, "options");
  throw new InvalidArgumentError(field, problem);
}
