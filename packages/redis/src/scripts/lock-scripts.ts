import { RedisScript } from "./redis-script.js";

/**
 * Extends many leases at once, never shortening one. KEYS: lock hashes (one slot on a Cluster).
 * ARGV: owner secret and ttl ms per key, in key order. Returns one 1|0 per key.
 */
export const RENEW_SCRIPT = new RedisScript(
  "distlock:renew",
  `
local renewed = {}
for i = 1, #KEYS do
  local ttl = tonumber(ARGV[i * 2])
  if redis.call("HGET", KEYS[i], "owner") == ARGV[i * 2 - 1] then
    if redis.call("PTTL", KEYS[i]) < ttl then redis.call("PEXPIRE", KEYS[i], ttl) end
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
 * The public view of a lock. KEYS[1]: the key's hash tag (lock hash and waiter entries are derived from it).
 * Returns {0} when free, else {1, holder, holdCount, token, ttlMs, waiters}.
 */
export const INSPECT_SCRIPT = new RedisScript(
  "distlock:inspect",
  `
local lock = KEYS[1] .. ":lock"
local fields = redis.call("HMGET", lock, "holder", "count", "token")
if not fields[1] then return {0} end
return {1, fields[1], tonumber(fields[2]), fields[3], redis.call("PTTL", lock), redis.call("HLEN", KEYS[1] .. ":waiters")}
`,
  1,
);
