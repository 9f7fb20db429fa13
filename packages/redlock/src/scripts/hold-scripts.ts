import { RedisScript } from "@distlock/redis/internal";
import { HOLD_FUNCTIONS } from "./stored-hold.js";

/**
 * Extends many leases at once, never shortening one. KEYS: holds (`RedisKeyLayout.lockKey`). ARGV: owner secret and
 * ttl ms per key, in key order. Returns one 1|0 per key.
 */
export const QUORUM_RENEW_SCRIPT = new RedisScript(
  "distlock:quorum-renew",
  `
local renewed = {}
for i = 1, #KEYS do
  local secret, ttl = ARGV[i * 2 - 1], tonumber(ARGV[i * 2])
  local mine = #secret .. " " .. secret
  if string.sub(redis.call("GET", KEYS[i]) or "", 1, #mine) == mine then
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

/** A node's view of a lock. KEYS[1]: the key's hash tag. Returns {0} when free here, else {1, holder, holdCount, token, ttlMs, waiters}. */
export const QUORUM_INSPECT_SCRIPT = new RedisScript(
  "distlock:quorum-inspect",
  `${HOLD_FUNCTIONS}
local lock = KEYS[1] .. ":lock"
local owner, count, token, holder = read_hold(redis.call("GET", lock))
if not owner then return {0} end
return {1, holder, count, token, redis.call("PTTL", lock), redis.call("HLEN", KEYS[1] .. ":waiters")}
`,
  1,
);
