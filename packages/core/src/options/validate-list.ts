import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ListOptions } from "../types.js";
import { DEFAULT_LIST_LIMIT, MAX_KEY_LENGTH, MAX_LIST_LIMIT } from "./defaults.js";
import { hasControlCharacter } from "./validate-acquire.js";

/** A `list` call's arguments, checked: the prefix as given and the limit with its default applied. */
export interface ListRequest {
  readonly prefix: string;
  readonly limit: number;
}

/** Throws `InvalidArgumentError` naming the first bad argument of `list`; the empty prefix (every key) is allowed. */
export function validateListArguments(prefix: unknown, options: unknown): ListRequest {
  if (typeof prefix !== "string") throw new InvalidArgumentError("prefix", `must be a string, got ${prefix === null ? "null" : typeof prefix}`);
  if (prefix.length > MAX_KEY_LENGTH) throw new InvalidArgumentError("prefix", `must be at most ${MAX_KEY_LENGTH} characters, got ${prefix.length}`);
  if (hasControlCharacter(prefix)) throw new InvalidArgumentError("prefix", "must not contain control characters");
  if (options === undefined) return { prefix, limit: DEFAULT_LIST_LIMIT };
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidArgumentError("options", "must be an object");
  for (const name of Object.keys(options)) {
    if (name !== "limit") throw new InvalidArgumentError(`options.${name}`, "is not a known option");
  }
  const { limit } = options as ListOptions;
  if (limit === undefined) return { prefix, limit: DEFAULT_LIST_LIMIT };
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError("options.limit", "must be a positive integer");
  if (limit > MAX_LIST_LIMIT) throw new InvalidArgumentError("options.limit", `must be at most ${MAX_LIST_LIMIT}`);
  return { prefix, limit };
}

/** Orders keys as `list` returns them: by their UTF-8 bytes, as the SQL and etcd backends sort them on the server. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
