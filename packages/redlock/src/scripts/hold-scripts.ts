import { HOLD_FUNCTIONS, RedisScript } from "@distlock/redis/internal";

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
