import { RedisScript } from "./redis-script.js";

/**
 * A script that extends many leases at once, never shortening one. KEYS: holds (one slot on a Cluster). ARGV: owner
 * secret and ttl ms per key, in key order. Returns one 1|0 per key. `owns`: a Lua condition on `key` and `secret`, true
 * when the hold at `key` is that owner's (each backend stores holds its own way).
 */
export function leaseRenewalScript(name: string, owns: string): RedisScript {
  return new RedisScript(
    name,
    `
local renewed = {}
for i = 1, #KEYS do
  local key, secret, ttl = KEYS[i], ARGV[i * 2 - 1], tonumber(ARGV[i * 2])
  if ${owns} then
    if redis.call("PTTL", key) < ttl then redis.call("PEXPIRE", key, ttl) end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
`,
    "variable",
  );
}

/** Renews lock hashes (see `leaseRenewalScript`). */
export const RENEW_SCRIPT = leaseRenewalScript("distlock:renew", `redis.call("HGET", key, "owner") == secret`);

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
