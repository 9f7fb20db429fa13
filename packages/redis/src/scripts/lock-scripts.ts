import { liveHoldStartingWith, RECORD_FUNCTIONS } from "./lock-record.js";
import { NOW_TEXT } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";
import { OWNS_STORED_HOLD } from "./stored-hold.js";

/**
 * Lua: for each key, ARGV's owner secret and ttl ms (locals `key`, `secret`, `ttl`); where `owns` holds, runs `extend`
 * and answers 1, else 0. Returns the answers, one per key.
 */
function renewEach(owns: string, extend: string): string {
  return `local renewed = {}
for i = 1, #KEYS do
  local key, secret, ttl = KEYS[i], ARGV[i * 2 - 1], tonumber(ARGV[i * 2])
  if ${owns} then
${extend}
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed`;
}

/**
 * Extends many leases at once, never shortening one: the holds stored as strings with an expiry (`stored-hold.ts`:
 * Redlock nodes' holds) that are the given owners'. KEYS: holds (one slot on a Cluster).
 * ARGV: owner secret and ttl ms per key, in key order. Returns one 1|0 per key. Each key costs a GET and a
 * `PEXPIRE … GT` (Redis 7+, which never shortens); a server without GT (6.2) answers the first with an error, and the
 * rest of the call reads PTTL before a plain PEXPIRE instead.
 */
export const RENEW_SCRIPT = new RedisScript(
  "distlock:renew",
  `local gt = true
${renewEach(
  OWNS_STORED_HOLD,
  `    if not gt or type(redis.pcall("PEXPIRE", key, ttl, "GT")) == "table" then
      gt = false
      if redis.call("PTTL", key) < ttl then redis.call("PEXPIRE", key, ttl) end
    end`,
)}
`,
  "variable",
);

/**
 * Extends many Redis locks' leases at once, never shortening one: the live holds (`lock-record.ts`) that are the given
 * owners'. KEYS: lock records (one slot on a Cluster). ARGV: owner secret and ttl ms per key, in key order. Returns one
 * 1|0 per key. Each key costs a GET and, when the lease grows, a SETRANGE of the deadline.
 */
export const LOCK_RENEW_SCRIPT = new RedisScript(
  "distlock:lock-renew",
  `${NOW_TEXT}
local now_ms = tonumber(now)
local value
local function owns_record(key, secret)
  value = redis.call("GET", key)
  local mine = #secret .. " " .. secret
  return ${liveHoldStartingWith("value", "mine", "now")}
end
${renewEach(
  "owns_record(key, secret)",
  `    local wanted = string.format("%.0f", now_ms + ttl)
    if wanted > string.sub(value, 2, 14) then redis.call("SETRANGE", key, 1, wanted) end`,
)}
`,
  "variable",
);

/**
 * The public view of a lock. KEYS[1]: the key's hash tag (the lock's record and waiter entries are derived from it).
 * Returns {0} when free, else {1, holder, holdCount, token, ttlMs, waiters}.
 */
export const INSPECT_SCRIPT = new RedisScript(
  "distlock:inspect",
  `${RECORD_FUNCTIONS}
local lock = KEYS[1] .. ":lock"
${NOW_TEXT}
local owner, count, token, mark, holder, deadline, left = read_record(lock, redis.call("GET", lock), now)
if not owner then return {0} end
return {1, holder, count, token, left, redis.call("HLEN", KEYS[1] .. ":waiters")}
`,
  1,
);
