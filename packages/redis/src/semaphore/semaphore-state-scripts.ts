import { NOW_US } from "../scripts/lua-functions.js";
import { RedisScript } from "../scripts/redis-script.js";
import { HOLD_FUNCTIONS, OWNS_STORED_HOLD } from "../scripts/stored-hold.js";

// The semaphore scripts that read or extend grants without moving the line (see semaphore-scripts.ts for the layout).

/**
 * Extends many grants' leases, never shortening one: a lone holder's stored hold (its expiry), or a holder's score in
 * the sorted set (and the keys' expiries). KEYS: the semaphores' hash tags (one slot on a Cluster; a tag may
 * repeat). ARGV: owner secret and ttl ms per key, in key order. Returns one 1|0 per key.
 */
export const SEMAPHORE_RENEW_SCRIPT = new RedisScript(
  "distlock:semaphore-renew",
  `${NOW_US}
local now = math.floor(now_us() / 1000)
local renewed = {}
for i = 1, #KEYS do
  local holders = KEYS[i] .. ":sem:holders"
  local secret, ttl = ARGV[i * 2 - 1], tonumber(ARGV[i * 2])
  local expires = now + ttl
  local kind = redis.call("TYPE", holders).ok
  renewed[i] = 0
  if kind == "string" then
    local key = holders
    if ${OWNS_STORED_HOLD} then
      if redis.call("PTTL", holders) < ttl then redis.call("PEXPIRE", holders, ttl) end
      renewed[i] = 1
    end
  elseif kind == "zset" then
    local score = tonumber(redis.call("ZSCORE", holders, secret) or "0")
    if score > now then
      if expires > score then
        redis.call("ZADD", holders, "XX", expires, secret)
        for _, key in ipairs({holders, KEYS[i] .. ":sem:state"}) do
          if redis.call("PTTL", key) < ttl then redis.call("PEXPIRE", key, ttl) end
        end
      end
      renewed[i] = 1
    end
  end
end
return renewed
`,
  "variable",
);

/**
 * The public view of a semaphore (a lone holder's stored hold, or the full layout). No ARGV. Returns {0} when nobody holds or waits, else
 * {permits, waiters, then per holder soonest-expiring first: holder label, count, token, ttl ms left}.
 */
export const SEMAPHORE_INSPECT_SCRIPT = new RedisScript(
  "distlock:semaphore-inspect",
  `${NOW_US}
local tag = KEYS[1]
local state = tag .. ":sem:state"
local now = math.floor(now_us() / 1000)
local permits = redis.call("HGET", state, "total")
if not permits then
${HOLD_FUNCTIONS}
  local key = tag .. ":sem:holders"
  local _, count, token, label = read_hold(redis.call("GET", key))
  if not count then return {0} end
  local lone, holder = string.match(label, "^(%d+) (.*)$")
  return {tonumber(lone), 0, holder, count, token, redis.call("PTTL", key)}
end
local reply = {tonumber(permits), redis.call("LLEN", tag .. ":sem:queue")}
local live = redis.call("ZRANGEBYSCORE", tag .. ":sem:holders", "(" .. now, "+inf", "WITHSCORES")
if #live == 0 and reply[2] == 0 then return {0} end
for i = 1, #live, 2 do
  local grant = redis.call("HGET", state, "g:" .. live[i])
  local count, token, holder = string.match(grant or "", "^(%d+) (%d+) (.*)$")
  if count then
    table.insert(reply, holder)
    table.insert(reply, tonumber(count))
    table.insert(reply, token)
    table.insert(reply, tonumber(live[i + 1]) - now)
  end
end
return reply
`,
  1,
);
