import { TOKEN_BLOCK } from "./lua-functions.js";
import { HOLD_FUNCTIONS, parseStoredHold } from "./stored-hold.js";

/**
 * A Redis lock keeps one record per name at `{<prefix>:<key>}:lock`, written without an expiry:
 *
 * - held: `R<lease deadline><stored hold>`, the deadline in ms of the server's clock (`TIME`) as 13 digits, the stored
 *   hold (`stored-hold.ts`) labelled `<line mark> <holder label>`. The mark is "-" for a hold nobody queued behind;
 *   "+" for one others may have queued behind (set by a waiter that queues on it, by a hand-off and by a grant over a
 *   leftover line, so the release of a hold nobody queued on never looks at the line); "+<waiter id>" for a hold handed
 *   to that waiter through the line and not yet claimed by it (so its next attempt claims it instead of re-entering);
 * - free: `R0000000000000<token>`, the last token the name's holds used.
 *
 * A hold whose deadline has passed is free, and every later grant's token is above its token's block (`TOKEN_BLOCK`).
 * So the record is the fencing counter too: one `GET` reads a name's state, one `SET` (no `PX`) writes it, and a set of
 * keys is one `MGET` and one `MSET`. A value that does not begin with `R` was written by an older client (a stored
 * hold with a native expiry): it reads as held by someone else until it expires. A released record never has a line
 * behind it: a release hands the name to the first live waiter, or empties the line.
 */
export const FREE_RECORD_HEAD = `R${"0".repeat(13)}`;

/** Where a record's stored hold begins (1-based, as Lua counts): after `R` and the 13-digit deadline. */
export const HOLD_AT = 15;

/**
 * Lua, defined before a script's helpers: `deadline_after(now, ttl)`, the deadline text of a lease of `ttl` ms from
 * `now` (`NOW_TEXT`); `read_record(lock, value, now)` →
 * for a live hold: owner secret, hold count, token, line mark, holder label, deadline text, ms left; for a free name:
 * false and the token every next grant must exceed (0 for a name never held), and the line mark of a hold that lapsed
 * (nil for a released one, which left no line); `write_hold(lock, deadline, secret, count, token, mark, holder)`;
 * `free_record(token)`; `set_free(lock, token, queue)` writes the free record, or, when a line is left (a hand-off gives
 * up after 1,000 dead entries), a lapsed hold marked "+" so that the next attempt looks at the line.
 */
export const RECORD_FUNCTIONS = `${HOLD_FUNCTIONS}
local function deadline_after(now, ttl) return string.format("%.0f", tonumber(now) + tonumber(ttl)) end
local function free_record(token) return "${FREE_RECORD_HEAD}" .. token end
local function read_lock(value)
  local owner, count, token, label = read_hold(value)
  if not owner then return false end
  local mark, holder = string.match(label, "^(%S+) (.*)$")
  return owner, count, token, mark, holder
end
local function read_record(lock, value, now)
  if not value then return false, 0 end
  if string.byte(value, 1) ~= 82 then
    local owner, count, token, mark, holder = read_lock(value)
    return true, count, token, mark, holder, nil, redis.call("PTTL", lock)
  end
  local deadline = string.sub(value, 2, 14)
  if deadline == "0000000000000" then return false, tonumber(string.sub(value, ${HOLD_AT})) end
  local owner, count, token, mark, holder = read_lock(string.sub(value, ${HOLD_AT}))
  if deadline <= now then return false, tonumber(token) + ${TOKEN_BLOCK}, mark end
  return owner, count, token, mark, holder, deadline, tonumber(deadline) - tonumber(now)
end
local function write_hold(lock, deadline, secret, count, token, mark, holder)
  redis.call("SET", lock, "R" .. deadline .. hold_value(secret, count, token, mark .. " " .. holder))
end
local function set_free(lock, token, queue)
  if redis.call("EXISTS", queue) == 0 then
    redis.call("SET", lock, free_record(token))
  else
    write_hold(lock, "0000000000001", "", 0, token, "+", "")
  end
end
`;

/**
 * Lua condition: `value` (a record's text, or false) is a hold live at `now` (`NOW_TEXT`) whose stored hold begins with
 * `prefix` (an owner prefix, `ownerPrefix`, or one followed by a hold count), found in place.
 */
export function liveHoldStartingWith(value: string, prefix: string, now: string): string {
  return `(${value} and string.byte(${value}, 1) == 82 and string.sub(${value}, 2, 14) > ${now} and string.find(${value}, ${prefix}, ${HOLD_AT}, true) == ${HOLD_AT})`;
}

/** A record as the server stores it (for tests and tools that read one). */
export type LockRecord =
  | { readonly free: true; readonly token: string }
  | {
      readonly free: false;
      readonly deadlineMs: number;
      readonly ownerSecret: string;
      readonly holdCount: number;
      readonly token: string;
      readonly label: string;
    };

/** The parts of a lock record, or undefined when `value` is not one (missing, or written by an older client). */
export function parseLockRecord(value: string | null | undefined): LockRecord | undefined {
  if (typeof value !== "string" || !value.startsWith("R")) return undefined;
  if (value.startsWith(FREE_RECORD_HEAD)) return { free: true, token: value.slice(FREE_RECORD_HEAD.length) };
  const hold = parseStoredHold(value.slice(HOLD_AT - 1));
  if (hold === undefined) return undefined;
  return { free: false, deadlineMs: Number(value.slice(1, HOLD_AT - 1)), ...hold };
}
