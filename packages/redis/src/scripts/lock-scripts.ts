import { LOCK_FUNCTIONS } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";
import { OWNS_STORED_HOLD } from "./stored-hold.js";

/**
 * Extends many leases at once, never shortening one: the holds stored as strings (`stored-hold.ts`: Redis locks and
 * Redlock nodes' holds, always written with an expiry) that are the given owners'. KEYS: holds (one slot on a Cluster).
 * ARGV: owner secret and ttl ms per key, in key order. Returns one 1|0 per key. Each key costs a GET and a
 * `PEXPIRE … GT` (Redis 7+, which never shortens); a server without GT (6.2) answers the first with an error, and the
 * rest of the call reads PTTL before a plain PEXPIRE instead.
 */
export const RENEW_SCRIPT = new RedisScript(
  "distlock:renew",
  `
local renewed = {}
local gt = true
for i = 1, #KEYS do
  local key, secret, ttl = KEYS[i], ARGV[i * 2 - 1], tonumber(ARGV[i * 2])
  if ${OWNS_STORED_HOLD} then
    if not gt or type(redis.pcall("PEXPIRE", key, ttl, "GT")) == "table" then
      gt = false
      if redis.call("PTTL", key) < ttl then redis.call("PEXPIRE", key, ttl) end
    end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
`,
  "variable",
);

/**
 * The public view of a lock. KEYS[1]: the key's hash tag (the lock's hold and waiter entries are derived from it).
 * Returns {0} when free, else {1, holder, holdCount, token, ttlMs, waiters}.
 */
export const INSPECT_SCRIPT = new RedisScript(
  "distlock:inspect",
  `${LOCK_FUNCTIONS}
local lock = KEYS[1] .. ":lock"
local owner, count, token, mark, holder = read_lock(redis.call("GET", lock))
if not owner then return {0} end
return {1, holder, count, token, redis.call("PTTL", lock), redis.call("HLEN", KEYS[1] .. ":waiters")}
`,
  1,
);
