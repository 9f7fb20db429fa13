import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MAX_MULTI_KEYS } from "./defaults.js";
import { keyProblem } from "./validate-acquire.js";
import { compareKeys } from "./validate-list.js";

/**
 * The keys of a multi-key call, checked (each as a key, named `keys[i]`; none twice; 1 to `MAX_MULTI_KEYS`) and sorted
 * into the one global order every caller takes them in: UTF-8 byte order, as `list` returns keys.
 */
export function validateKeys(keys: unknown): string[] {
  if (!Array.isArray(keys)) throw new InvalidArgumentError("keys", `must be an array of keys, got ${keys === null ? "null" : typeof keys}`);
  if (keys.length === 0) throw new InvalidArgumentError("keys", "must name at least one key");
  if (keys.length > MAX_MULTI_KEYS) throw new InvalidArgumentError("keys", `must name at most ${MAX_MULTI_KEYS} keys, got ${keys.length}`);
  for (let i = 0; i < keys.length; i++) {
    // The field's name is written only for an error: building it for every key cost more than checking the key.
    const problem = keyProblem(keys[i]);
    if (problem !== undefined) throw new InvalidArgumentError(`keys[${i}]`, problem);
  }
  const ordered = byteOrder((keys as string[]).slice());
  // Sorted, a key named twice sits next to itself: no set of the keys is built unless one is.
  for (let i = 1; i < ordered.length; i++) if (ordered[i] === ordered[i - 1]) throw firstRepeat(keys as string[]);
  return ordered;
}

/** The error for the first key of `keys` (in the caller's order) that repeats an earlier one. */
function firstRepeat(keys: readonly string[]): InvalidArgumentError {
  const seen = new Set<string>();
  for (const [i, key] of keys.entries()) {
    if (seen.has(key)) return new InvalidArgumentError(`keys[${i}]`, `repeats keys[${keys.indexOf(key)}] ("${key}"); name each key once`);
    seen.add(key);
  }
  return new InvalidArgumentError("keys", "must name each key once");
}

/** A UTF-16 surrogate: a character outside the Basic Multilingual Plane. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * `keys` sorted as `compareKeys` sorts them. Without surrogate pairs JavaScript's own string order (UTF-16 code units)
 * is code point order, which is UTF-8 byte order, so the common case compares no encoded copies.
 */
function byteOrder(keys: string[]): string[] {
  if (!keys.some((key) => SURROGATE.test(key))) return keys.sort();
  return keys.sort(compareKeys);
}
