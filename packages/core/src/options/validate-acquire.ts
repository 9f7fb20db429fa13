import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { AcquireOptions } from "../types.js";
import { MAX_DURATION_MS, MAX_KEY_LENGTH, MAX_OWNER_LENGTH } from "./defaults.js";

const NO_OPTIONS: AcquireOptions = Object.freeze({});

/** Whether `text` holds a character no key (or key prefix) may contain: C0 controls and DEL. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Throws `InvalidArgumentError` unless `key` is a usable lock key (or semaphore name: `field`). */
export function validateKey(key: unknown, field = "key"): asserts key is string {
  const problem = keyProblem(key);
  if (problem !== undefined) throw new InvalidArgumentError(field, problem);
}

/** What makes `key` unusable as a lock key, as an error message says it; undefined for a usable one. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return `must be a string, got ${key === null ? "null" : typeof key}`;
  if (key.length === 0) return "must not be empty";
  if (key.length > MAX_KEY_LENGTH) return `must be at most ${MAX_KEY_LENGTH} characters, got ${key.length}`;
  if (hasControlCharacter(key)) return "must not contain control characters";
  return undefined;
}

/**
 * Returns a copy of the options checked field by field; throws `InvalidArgumentError` naming the first bad or unknown
 * field. Written out by hand rather than as a schema: it runs on every acquire, and a schema parse cost more than the rest of core.
 */
export function validateAcquireOptions(options: unknown): AcquireOptions {
  if (options === undefined) return NO_OPTIONS;
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object");
  const fields = options as Record<string, unknown>;
  for (const name in fields) {
    if (!isAcquireOptionName(name) && Object.hasOwn(fields, name)) throw new InvalidArgumentError(`options.${name}`, "is not a known option");
  }
  const { ttlMs, waitMs, signal, autoRenew, owner } = fields;
  if (ttlMs !== undefined) checkDuration("options.ttlMs", ttlMs, "positive");
  if (waitMs !== undefined) checkDuration("options.waitMs", waitMs, "non-negative");
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError("options.signal", "must be an AbortSignal");
  if (autoRenew !== undefined && typeof autoRenew !== "boolean") throw new InvalidArgumentError("options.autoRenew", "must be a boolean");
  if (owner !== undefined) checkOwner(owner);
  return { ttlMs, waitMs, signal, autoRenew, owner } as AcquireOptions;
}

function isAcquireOptionName(name: string): name is keyof AcquireOptions {
  return name === "ttlMs" || name === "waitMs" || name === "signal" || name === "autoRenew" || name === "owner";
}

function checkDuration(field: string, value: unknown, minimum: "positive" | "non-negative"): void {
  if (typeof value !== "number") throw new InvalidArgumentError(field, "must be a number of milliseconds");
  if (!Number.isFinite(value)) throw new InvalidArgumentError(field, "must be a finite number");
  if (minimum === "positive" ? value <= 0 : value < 0)
    throw new InvalidArgumentError(field, `must be ${minimum === "positive" ? "greater than 0" : "0 or more"}`);
  if (value > MAX_DURATION_MS) throw new InvalidArgumentError(field, `must be at most ${MAX_DURATION_MS}`);
}

function checkOwner(owner: unknown): void {
  if (typeof owner !== "string") throw new InvalidArgumentError("options.owner", "must be a string");
  if (owner.length === 0) throw new InvalidArgumentError("options.owner", "must not be empty");
  if (owner.length > MAX_OWNER_LENGTH) throw new InvalidArgumentError("options.owner", `must be at most ${MAX_OWNER_LENGTH} characters`);
}
