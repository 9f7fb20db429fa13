/**
 * A hold stored as one string, `<secret length> <secret><hold count> <token> <label>` (token "" without fencing): one
 * `GET` reads it, and the owner check is a prefix comparison. The secret's length makes the check exact whatever the
 * secret and the label contain. A Redlock node stores it as a key whose expiry is the lease (one `SET … PX` writes a
 * fresh hold), labelled with the holder label; a Redis lock keeps it in its record (`lock-record.ts`), labelled
 * `<line mark> <holder label>`.
 */

/** Lua: `read_hold(value)` → owner secret, hold count, token, label (false for a free lock); `hold_value(…)` writes one. */
export const HOLD_FUNCTIONS = `
local function read_hold(value)
  if not value then return false end
  local size, at = string.match(value, "^(%d+) ()")
  local secret_end = at + tonumber(size) - 1
  local count, token, label = string.match(value, "^(%d+) (%d*) (.*)$", secret_end + 1)
  return string.sub(value, at, secret_end), tonumber(count), token, label
end
local function hold_value(secret, count, token, label)
  return #secret .. " " .. secret .. count .. " " .. token .. " " .. label
end
`;

/** Lua condition on `key` and `secret`: the hold stored at `key` is that owner's (a renewal script's `owns`). */
export const OWNS_STORED_HOLD = `string.sub(redis.call("GET", key) or "", 1, #secret + #tostring(#secret) + 1) == #secret .. " " .. secret`;

/**
 * How a stored hold of `ownerSecret` begins: its length in bytes (as Lua counts), a space, the secret. The Redis lock
 * scripts take it instead of the secret, so their common path converts no number to text.
 */
export function ownerPrefix(ownerSecret: string): string {
  return `${Buffer.byteLength(ownerSecret)} ${ownerSecret}`;
}

/** A hold as a node stores it (for tests that write one as another owner would). */
export function storedHold(ownerSecret: string, holdCount: number, token: string, label: string): string {
  return `${ownerPrefix(ownerSecret)}${holdCount} ${token} ${label}`;
}

/** The parts of a hold as a node stores it, or undefined when `value` is not one. */
export function parseStoredHold(value: string): { ownerSecret: string; holdCount: number; token: string; label: string } | undefined {
  const size = /^(\d+) /.exec(value);
  if (size === null) return undefined;
  const bytes = Buffer.from(value);
  const at = (size[0] as string).length;
  const end = at + Number(size[1]);
  const rest = /^(\d+) (\d*) ([\s\S]*)$/.exec(bytes.toString("utf8", end));
  if (rest === null) return undefined;
  return { ownerSecret: bytes.toString("utf8", at, end), holdCount: Number(rest[1]), token: rest[2] as string, label: rest[3] as string };
}
