import { RedisScript } from "./redis-script.js";

/**
 * Takes or re-enters a lock, ignoring any wait queue (Redlock's per-node vote). KEYS: lock hash, fencing counter.
 * ARGV: owner secret, holder label, ttl ms, proposed token (a decimal integer string, or "" without fencing).
 * A free lock is granted only with a proposed token above the node's never-expiring counter, which is raised to it:
 * every node that grants stores the same token. Returns {1, token, holdCount, ttlMs} when granted or re-entered (a
 * re-entry keeps its token), {0, holder's remaining ttl ms} when held by another owner, {-1, counter} when the lock is
 * free but the proposal is not above the counter (nothing changed).
 */
export const ACQUIRE_SCRIPT = new RedisScript(
  "distlock:acquire",
  `
local owner = redis.call("HGET", KEYS[1], "owner")
local ttl = tonumber(ARGV[3])
if not owner then
  local proposed = ARGV[4]
  if proposed ~= "" then
    local last = redis.call("SET", KEYS[2], proposed, "GET")
    if last and (#last > #proposed or (#last == #proposed and last >= proposed)) then
      redis.call("SET", KEYS[2], last)
      return {-1, last}
    end
  end
  redis.call("HSET", KEYS[1], "owner", ARGV[1], "holder", ARGV[2], "count", 1, "token", proposed)
  redis.call("PEXPIRE", KEYS[1], ttl)
  return {1, proposed, 1, ttl}
end
if owner == ARGV[1] then
  local count = redis.call("HINCRBY", KEYS[1], "count", 1)
  local left = redis.call("PTTL", KEYS[1])
  if left < ttl then
    redis.call("PEXPIRE", KEYS[1], ttl)
    left = ttl
  end
  return {1, redis.call("HGET", KEYS[1], "token"), count, left}
end
return {0, redis.call("PTTL", KEYS[1])}
`,
  2,
);

/**
 * Drops one level of a hold; deletes the hash and publishes a wake-up at zero.
 * KEYS: lock hash. ARGV: owner secret, release channel. Returns {held 1|0, holdCount left}.
 */
export const RELEASE_SCRIPT = new RedisScript(
  "distlock:release",
  `
local hold = redis.call("HMGET", KEYS[1], "owner", "count")
if hold[1] ~= ARGV[1] then return {0, 0} end
if tonumber(hold[2]) > 1 then return {1, redis.call("HINCRBY", KEYS[1], "count", -1)} end
redis.call("DEL", KEYS[1])
redis.call("PUBLISH", ARGV[2], "")
return {1, 0}
`,
  1,
);

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

/** The public view of a lock. KEYS: lock hash. Returns {0} when free, else {1, holder, holdCount, token, ttlMs}. */
export const INSPECT_SCRIPT = new RedisScript(
  "distlock:inspect",
  `
local fields = redis.call("HMGET", KEYS[1], "holder", "count", "token")
if not fields[1] then return {0} end
return {1, fields[1], tonumber(fields[2]), fields[3], redis.call("PTTL", KEYS[1])}
`,
  1,
);

/** Frees a lock whoever holds it and wakes its waiters. KEYS: lock hash. ARGV: release channel. Returns 1|0. */
export const FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:force-release",
  `
if redis.call("DEL", KEYS[1]) == 0 then return 0 end
redis.call("PUBLISH", ARGV[1], "")
return 1
`,
  1,
);
