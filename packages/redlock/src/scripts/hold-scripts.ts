import { leaseRenewalScript, RedisScript } from "@distlock/redis/internal";
import { HOLD_FUNCTIONS } from "./stored-hold.js";

/** Renews holds (`RedisKeyLayout.lockKey`): the owner's when the stored string starts with its secret's length and the secret. */
export const QUORUM_RENEW_SCRIPT = leaseRenewalScript(
  "distlock:quorum-renew",
  `string.sub(redis.call("GET", key) or "", 1, #secret + #tostring(#secret) + 1) == #secret .. " " .. secret`,
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
