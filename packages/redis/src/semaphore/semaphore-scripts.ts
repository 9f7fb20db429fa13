import { NEXT_TOKEN, NOW_US } from "../scripts/lua-functions.js";
import { RedisScript } from "../scripts/redis-script.js";

/**
 * KEYS[1] of every semaphore script is the semaphore's hash tag (`RedisKeyLayout.tag(name)`); the script derives the
 * rest from it, so on a Cluster they all live in the tag's slot:
 * - `<tag>:sem:holders`: sorted set, owner secret → lease expiry (server ms); a crashed holder's entry lapses by its score;
 * - `<tag>:sem:grants`: hash, owner secret → "<count> <fencing token> <holder label>";
 * - `<tag>:sem:permits`: the permit count the semaphore is in use with, kept while anyone holds or waits;
 * - `<tag>:sem:fence`: the fencing counter, never expiring (the lock's `next_token`, so tokens also follow the clock);
 * - `<tag>:sem:queue` and `<tag>:sem:waiters`: the FIFO line (ids in arrival order) and each waiter's
 *   "<expiry ms> <count> <ttl ms> <owner secret> <holder label>";
 * - `<tag>:sem:changed`: pub/sub channel where "<waiter id> <fencing token> <ttl ms>" tells a waiter that its permits
 *   were granted to it (the lock's hand-off format), so it holds them without another round trip.
 * Every script first drops lapsed holders, so their permits are free to whoever runs next; and after any change that
 * may let the head in, it grants the heads of the line whose counts fit, in order.
 */
const SEMAPHORE_STATE = `${NOW_US}${NEXT_TOKEN}
local tag = KEYS[1]
local holders, grants, stored, fence = tag .. ":sem:holders", tag .. ":sem:grants", tag .. ":sem:permits", tag .. ":sem:fence"
local queue, waiters, channel = tag .. ":sem:queue", tag .. ":sem:waiters", tag .. ":sem:changed"
local clock = now_us()
local now = math.floor(clock / 1000)
local function prune()
  local lapsed = redis.call("ZRANGEBYSCORE", holders, "-inf", now)
  if #lapsed == 0 then return 0 end
  redis.call("ZREMRANGEBYSCORE", holders, "-inf", now)
  redis.call("HDEL", grants, unpack(lapsed))
  return #lapsed
end
local function in_use()
  local total = 0
  for _, grant in ipairs(redis.call("HVALS", grants)) do total = total + tonumber(string.match(grant, "^(%d+)")) end
  return total
end
local function head()
  for _ = 1, 1000 do
    local id = redis.call("LINDEX", queue, 0)
    if not id then return nil end
    local entry = redis.call("HGET", waiters, id)
    local expires, count, ttl, secret, holder = string.match(entry or "", "^(%d+) (%d+) (%d+) (%S+) (.*)$")
    if expires and tonumber(expires) > now then return id, tonumber(count), tonumber(ttl), secret, holder end
    redis.call("LPOP", queue)
    redis.call("HDEL", waiters, id)
  end
  return nil
end
local function grant(secret, count, ttl, holder)
  local token = next_token(fence, clock)
  redis.call("ZADD", holders, string.format("%.0f", now + ttl), secret)
  redis.call("HSET", grants, secret, count .. " " .. token .. " " .. holder)
  return token
end
local function serve_line(permits)
  if not permits then return end
  local free = nil
  for _ = 1, 1000 do
    local id, count, ttl, secret, holder = head()
    if not id then return end
    free = free or tonumber(permits) - in_use()
    if count > free then return end
    redis.call("LPOP", queue)
    redis.call("HDEL", waiters, id)
    redis.call("PUBLISH", channel, id .. " " .. grant(secret, count, ttl, holder) .. " " .. ttl)
    free = free - count
  end
end
local function keep()
  local last = redis.call("ZRANGE", holders, -1, -1, "WITHSCORES")
  local ms = last[2] and tonumber(last[2]) - now or 0
  local line_ms = redis.call("PTTL", queue)
  if line_ms > ms then ms = line_ms end
  if ms > 0 then
    redis.call("PEXPIRE", holders, ms)
    redis.call("PEXPIRE", grants, ms)
    redis.call("PEXPIRE", stored, ms)
  else
    redis.call("DEL", holders, grants, stored)
  end
end
`;

/**
 * Takes `count` permits if that many are free and nobody waits ahead, else refuses and, for a waiter, joins or
 * refreshes its place in line. A waiter whose permits were granted to it already (by a release whose message it has not
 * seen yet) gets that grant, its lease starting again now. ARGV: owner secret, ttl ms, holder label, permits, count, and
 * for a waiter its id and lease ms. Replies: a grant's fencing token (string); a refusal's retry bound in ms (integer:
 * until the soonest holder's lease ends, or the waiter's lease); {stored permits} when the semaphore is in use with
 * another permit count.
 */
export const SEMAPHORE_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:semaphore-acquire",
  `${SEMAPHORE_STATE}
local secret, ttl, holder, permits, count = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local id, lease = ARGV[6], tonumber(ARGV[7] or "0")
prune()
local known = redis.call("GET", stored)
if known and tonumber(known) ~= permits then return {tonumber(known)} end
serve_line(known)
local granted = redis.call("HGET", grants, secret)
if granted then
  redis.call("ZADD", holders, "XX", string.format("%.0f", now + ttl), secret)
  keep()
  return string.match(granted, "^%d+ (%d+)")
end
if not head() and in_use() + count <= permits then
  local token = grant(secret, count, ttl, holder)
  redis.call("SET", stored, permits)
  keep()
  return token
end
if id then
  local entry = string.format("%.0f", now + lease) .. " " .. count .. " " .. ttl .. " " .. secret .. " " .. holder
  if redis.call("HSET", waiters, id, entry) == 1 then redis.call("RPUSH", queue, id) end
  if redis.call("PTTL", queue) < lease * 2 then
    redis.call("PEXPIRE", queue, lease * 2)
    redis.call("PEXPIRE", waiters, lease * 2)
  end
  redis.call("SET", stored, permits)
end
keep()
local soonest = redis.call("ZRANGE", holders, 0, 0, "WITHSCORES")
if soonest[2] then return math.max(1, tonumber(soonest[2]) - now) end
return math.max(1, lease)
`,
  1,
);

/** Gives a grant's permits back and grants them on to the heads of the line that fit now. ARGV: owner secret. Returns 1, or 0 when not held. */
export const SEMAPHORE_RELEASE_SCRIPT = new RedisScript(
  "distlock:semaphore-release",
  `${SEMAPHORE_STATE}
prune()
local held = redis.call("ZREM", holders, ARGV[1])
redis.call("HDEL", grants, ARGV[1])
serve_line(redis.call("GET", stored))
keep()
return held
`,
  1,
);

/**
 * A waiter gives up: drops its place in line, gives back permits granted to it that it has not heard of, and grants
 * the heads of the line that fit now. ARGV: waiter id, its owner secret. Returns 1.
 */
export const SEMAPHORE_LEAVE_SCRIPT = new RedisScript(
  "distlock:semaphore-leave",
  `${SEMAPHORE_STATE}
prune()
redis.call("HDEL", waiters, ARGV[1])
redis.call("LREM", queue, 1, ARGV[1])
redis.call("ZREM", holders, ARGV[2])
redis.call("HDEL", grants, ARGV[2])
serve_line(redis.call("GET", stored))
keep()
return 1
`,
  1,
);

/**
 * Extends many grants' leases, never shortening one. KEYS: the semaphores' hash tags (one slot on a Cluster; a tag may
 * repeat). ARGV: owner secret and ttl ms per key, in key order. Returns one 1|0 per key.
 */
export const SEMAPHORE_RENEW_SCRIPT = new RedisScript(
  "distlock:semaphore-renew",
  `${NOW_US}
local now = math.floor(now_us() / 1000)
local renewed = {}
for i = 1, #KEYS do
  local holders = KEYS[i] .. ":sem:holders"
  local secret, expires = ARGV[i * 2 - 1], now + tonumber(ARGV[i * 2])
  local score = tonumber(redis.call("ZSCORE", holders, secret) or "0")
  if score > now then
    if expires > score then
      redis.call("ZADD", holders, "XX", string.format("%.0f", expires), secret)
      for _, key in ipairs({holders, KEYS[i] .. ":sem:grants", KEYS[i] .. ":sem:permits"}) do
        if redis.call("PTTL", key) < expires - now then redis.call("PEXPIRE", key, expires - now) end
      end
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
 * The public view of a semaphore. No ARGV. Returns {0} when nobody holds or waits, else
 * {permits, waiters, then per holder soonest-expiring first: holder label, count, token, ttl ms left}.
 */
export const SEMAPHORE_INSPECT_SCRIPT = new RedisScript(
  "distlock:semaphore-inspect",
  `${SEMAPHORE_STATE}
local permits = redis.call("GET", stored)
if not permits then return {0} end
local reply = {tonumber(permits), redis.call("HLEN", waiters)}
local live = redis.call("ZRANGEBYSCORE", holders, "(" .. string.format("%.0f", now), "+inf", "WITHSCORES")
if #live == 0 and reply[2] == 0 then return {0} end
for i = 1, #live, 2 do
  local grant = redis.call("HGET", grants, live[i])
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
