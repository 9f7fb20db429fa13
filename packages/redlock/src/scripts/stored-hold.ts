/**
 * A node stores a hold as one string, `<secret length> <secret><hold count> <token> <holder label>` (token "" without
 * fencing), with the lease as the key's expiry: one `SET … PX` writes a fresh hold, one `GET` reads it, and the owner
 * check is a prefix comparison. The secret's length makes the check exact whatever the secret and the label contain.
 */

/** Lua: `read_hold(value)` → owner secret, hold count, token, holder label (false for a free lock); `hold_value(…)` writes one. */
export const HOLD_FUNCTIONS = `
local function read_hold(value)
  if not value then return false end
  local size, at = string.match(value, "^(%d+) ()")
  local secret_end = at + tonumber(size) - 1
  local count, token, holder = string.match(value, "^(%d+) (%d*) (.*)$", secret_end + 1)
  return string.sub(value, at, secret_end), tonumber(count), token, holder
end
local function hold_value(secret, count, token, holder)
  return #secret .. " " .. secret .. count .. " " .. token .. " " .. holder
end
`;

/** A hold as a node stores it (for tests that write one as another owner would). Lengths are in bytes, as Lua counts. */
export function storedHold(ownerSecret: string, holdCount: number, token: string, holder: string): string {
  return `${Buffer.byteLength(ownerSecret)} ${ownerSecret}${holdCount} ${token} ${holder}`;
}

/** The parts of a hold as a node stores it, or undefined when `value` is not one. */
export function parseStoredHold(value: string): { ownerSecret: string; holdCount: number; token: string; holder: string } | undefined {
  const size = /^(\d+) /.exec(value);
  if (size === null) return undefined;
  const bytes = Buffer.from(value);
  const at = (size[0] as string).length;
  const end = at + Number(size[1]);
  const rest = /^(\d+) (\d*) ([\s\S]*)$/.exec(bytes.toString("utf8", end));
  if (rest === null) return undefined;
  return { ownerSecret: bytes.toString("utf8", at, end), holdCount: Number(rest[1]), token: rest[2] as string, holder: rest[3] as string };
}
