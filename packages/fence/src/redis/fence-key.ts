import { InvalidArgumentError } from "@distlock/core";

const SUFFIX = ":fencing-token";

/**
 * The key that keeps the highest fencing token written to `key`, in the same Redis Cluster slot as `key` (a cluster
 * hashes only a key's hash tag, the text between its first `{` and the first `}` after it when that text is not empty,
 * else the whole key):
 * - `key` has a hash tag: `<key>:fencing-token`; the suffix comes after the tag, so the tag and the slot stay.
 * - `key` has no `}`: `{<key>}:fencing-token`; its tag is exactly `key`, and `key`'s slot is the hash of all of it.
 * - otherwise (a `}` but no tag, e.g. `a}b` or `x{}y`) no name can share the slot: InvalidArgumentError naming `field`.
 *
 * The token key never expires and a fenced delete keeps it, so a deleted resource still refuses stale writers.
 */
export function redisFenceKey(key: string, field = "key"): string {
  if (typeof key !== "string" || key === "") throw new InvalidArgumentError(field, "must be a non-empty string");
  const open = key.indexOf("{");
  const close = open === -1 ? -1 : key.indexOf("}", open + 1);
  if (close > open + 1) return `${key}${SUFFIX}`;
  if (!key.includes("}")) return `{${key}}${SUFFIX}`;
  throw new InvalidArgumentError(
    field,
    `${JSON.stringify(key)} has a "}" but no hash tag, so no token key can share its cluster slot; give it a hash tag or pass options.fenceKey`,
  );
}
