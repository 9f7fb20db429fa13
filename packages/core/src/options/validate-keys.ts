import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MAX_MULTI_KEYS } from "./defaults.js";
import { validateKey } from "./validate-acquire.js";
import { compareKeys } from "./validate-list.js";

/**
 * The keys of a multi-key call, checked (each as a key, named `keys[i]`; none twice; 1 to `MAX_MULTI_KEYS`) and sorted
 * into the one global order every caller takes them in: UTF-8 byte order, as `list` returns keys.
 */
export function validateKeys(keys: unknown): string[] {
  if (!Array.isArray(keys)) throw new InvalidArgumentError("keys", `must be an array of keys, got ${keys === null ? "null" : typeof keys}`);
  if (keys.length === 0) throw new InvalidArgumentError("keys", "must name at least one key");
  if (keys.length > MAX_MULTI_KEYS) throw new InvalidArgumentError("keys", `must name at most ${MAX_MULTI_KEYS} keys, got ${keys.length}`);
  const seen = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    const key: unknown = keys[i];
    validateKey(key, `keys[${i}]`);
    const first = seen.get(key);
    if (first !== undefined) throw new InvalidArgumentError(`keys[${i}]`, `repeats keys[${first}] ("${key}"); name each key once`);
    seen.set(key, i);
  }
  return byteOrder([...seen.keys()]);
}

/**
 * `keys` sorted as `compareKeys` sorts them. Without surrogate pairs JavaScript's own string order (UTF-16 code units)
 * is code point order, which is UTF-8 byte order, so the common case compares no encoded copies.
 */
function byteOrder(keys: string[]): string[] {
  if (!keys.some((key) => /[\uD800-\uDFFF]/.test(key))) return keys.sort();
  return keys.sort(compareKeys);
}
