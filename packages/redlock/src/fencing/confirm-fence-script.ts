import { RedisScript } from "@distlock/redis";

/**
 * Second step of a fenced Redlock acquisition, run after the acquire script granted a majority.
 * If the owner still holds the lock here: raises the node's fencing counter to the quorum's token and stores
 * the token in the lock hash, marked "=" as confirmed. KEYS: lock hash, fencing counter. ARGV: owner secret, token.
 * Returns 1 when confirmed, 0 when the owner does not hold the lock on this node.
 */
export const CONFIRM_FENCE_SCRIPT = new RedisScript(
  "distlock:redlock-confirm-fence",
  `
if redis.call("HGET", KEYS[1], "owner") ~= ARGV[1] then return 0 end
if tonumber(redis.call("GET", KEYS[2]) or "0") < tonumber(ARGV[2]) then redis.call("SET", KEYS[2], ARGV[2]) end
redis.call("HSET", KEYS[1], "token", "=" .. ARGV[2])
return 1
`,
  2,
);
