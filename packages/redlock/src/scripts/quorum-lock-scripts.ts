import { KEEP_QUEUE, NOW_US, REENTER, RedisScript } from "@distlock/redis/internal";

/**
 * Lua helpers of a node's wait queue: a sorted set of waiter ids scored by the waiter's ticket (its client's clock when
 * it began waiting, the same on every node, so every node orders the same waiters alike) and a hash id → expiry (ms,
 * node clock). `live_head` drops expired waiters from the front and returns the first live one, its ticket and its
 * expiry, or false.
 */
const QUEUE_FUNCTIONS = `${NOW_US}${KEEP_QUEUE}
local function now_ms()
  return math.floor(now_us() / 1000)
end
local function drop_waiter(queue, waiters, id)
  redis.call("ZREM", queue, id)
  redis.call("HDEL", waiters, id)
end
local function live_head(queue, waiters, now)
  for _ = 1, 1000 do
    local first = redis.call("ZRANGE", queue, 0, 0, "WITHSCORES")
    if not first[1] then return false end
    local expires = tonumber(redis.call("HGET", waiters, first[1]) or "0")
    if expires > now then return first[1], tonumber(first[2]), expires end
    drop_waiter(queue, waiters, first[1])
  end
  return false
end
local function join_queue(queue, waiters, id, ticket, lease, now)
  redis.call("ZADD", queue, "NX", ticket, id)
  redis.call("HSET", waiters, id, string.format("%.0f", now + lease))
  keep_queue(queue, waiters, lease)
end
local function announce_head(queue, waiters, channel, now)
  if redis.call("EXISTS", queue) == 0 then return end
  local head = live_head(queue, waiters, now or now_ms())
  if head then redis.call("PUBLISH", channel, head) end
end
`;

/**
 * KEYS of every script here (`RedisKeyLayout.queueScriptKeys`): lock hash, fencing counter, wait queue (sorted set),
 * waiter expiries (hash). The acquire and release scripts settle their common case (a free lock nobody waits for; the
 * last level of a hold nobody waits behind) before the helpers are defined: defining them costs server time on every call.
 */
const QUEUE_KEYS = "local lock, fence, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]";

/**
 * One node's vote on a lock. ARGV: owner secret, holder
 * label, ttl ms, proposed token (a decimal integer string, or "" without fencing), waiter id ("" for an attempt that
 * does not wait), waiter ticket, waiter lease ms, and optionally the counter a grant sets (the proposal plus a token
 * block reserved for a process cohort; the proposal itself when absent).
 * A free lock goes only to the queue's first live waiter (or a waiter whose ticket puts it ahead of the first: its
 * place had not reached this node yet when the last release here announced the first), or to anyone when no one
 * waits; then only with a proposed token above the node's never-expiring counter, which is raised to it, so every
 * node that grants stores the same token. A refused waiter joins (or refreshes its place in) the queue.
 * Returns {1, token, holdCount, ttlMs, waiters left in the queue} when granted or re-entered (a re-entry keeps its token;
 * the waiters are absent when none), {0, ms until the holder's lease or the first waiter's entry ends} when refused,
 * {-1, counter} when the proposal was not above the counter.
 */
export const QUORUM_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:quorum-acquire",
  `${QUEUE_KEYS}
if redis.call("EXISTS", lock, queue) == 0 then
  local proposed = ARGV[4]
  local last = proposed ~= "" and redis.call("SET", fence, ARGV[8] or proposed, "GET")
  if not (last and (#last > #proposed or (#last == #proposed and last >= proposed))) then
    redis.call("HSET", lock, "owner", ARGV[1], "holder", ARGV[2], "count", 1, "token", proposed)
    redis.call("PEXPIRE", lock, ARGV[3])
    return {1, proposed, 1, tonumber(ARGV[3])}
  end
  redis.call("SET", fence, last)
end
${QUEUE_FUNCTIONS}${REENTER}
local secret, ttl, proposed, id = ARGV[1], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local owner = redis.call("HGET", lock, "owner")
if owner == secret then
  local count, left = reenter(lock, ttl)
  return {1, redis.call("HGET", lock, "token"), count, left}
end
local now = redis.call("EXISTS", queue) == 1 and now_ms()
local head, head_ticket, head_expires = false, nil, nil
if now then head, head_ticket, head_expires = live_head(queue, waiters, now) end
local ticket = id ~= "" and tonumber(ARGV[6])
local ahead = head and ticket and (ticket < head_ticket or (ticket == head_ticket and id < head))
local refusal
if owner then
  refusal = {0, redis.call("PTTL", lock)}
elseif head and head ~= id and not ahead then
  refusal = {0, head_expires - now}
elseif proposed ~= "" then
  local last = redis.call("SET", fence, ARGV[8] or proposed, "GET")
  if last and (#last > #proposed or (#last == #proposed and last >= proposed)) then
    redis.call("SET", fence, last)
    refusal = {-1, last}
  end
end
if refusal then
  if id ~= "" then join_queue(queue, waiters, id, ARGV[6], tonumber(ARGV[7]), now or now_ms()) end
  return refusal
end
if head and id ~= "" then drop_waiter(queue, waiters, id) end
redis.call("HSET", lock, "owner", secret, "holder", ARGV[2], "count", 1, "token", proposed)
redis.call("PEXPIRE", lock, ttl)
return {1, proposed, 1, ttl, now and redis.call("ZCARD", queue) or 0}
`,
  4,
);

/**
 * Drops one level of a hold; at zero deletes it and announces the queue's first live waiter, if any, on the release
 * channel (so does a release that finds the lock free: its copy here expired). ARGV: owner secret, release channel,
 * and when a waiter gives back a grant of a failed attempt: its waiter id, ticket and lease ms (it keeps its place in
 * the queue); a process cohort's give-back sends "", "", "" there and then the last token it passed: the last level's
 * release lowers the counter to it (never below the hold's own token), giving back the rest of the block its grant
 * reserved. Returns {held 1|0, holdCount left}.
 */
export const QUORUM_RELEASE_SCRIPT = new RedisScript(
  "distlock:quorum-release",
  `${QUEUE_KEYS}
local hold = redis.call("HMGET", lock, "owner", "count")
local giving_back = (ARGV[3] or "") ~= ""
if hold[1] == ARGV[1] and hold[2] == "1" and not giving_back then
  local lower = ARGV[6]
  if lower then
    local function above(a, b) return #a > #b or (#a == #b and a > b) end
    local counter, token = redis.call("GET", fence), redis.call("HGET", lock, "token")
    if counter and token and above(counter, lower) and not above(token, lower) then redis.call("SET", fence, lower) end
  end
  redis.call("DEL", lock)
  if redis.call("EXISTS", queue) == 0 then return {1, 0} end
end
${QUEUE_FUNCTIONS}
if hold[1] ~= ARGV[1] then
  if not hold[1] then announce_head(queue, waiters, ARGV[2]) end
  return {0, 0}
end
if tonumber(hold[2]) > 1 then return {1, redis.call("HINCRBY", lock, "count", -1)} end
local now
if giving_back then
  redis.call("DEL", lock)
  now = now_ms()
  join_queue(queue, waiters, ARGV[3], ARGV[4], tonumber(ARGV[5]), now)
end
announce_head(queue, waiters, ARGV[2], now)
return {1, 0}
`,
  4,
);

/**
 * A waiter leaves the queue. ARGV: waiter id, release channel, or "" for a waiter that won on other nodes: it stays
 * silent, because its own release will announce the next waiter here. A waiter that gives up announces the next one if
 * the lock is free. Returns 1|0.
 */
export const LEAVE_QUORUM_QUEUE_SCRIPT = new RedisScript(
  "distlock:leave-quorum-queue",
  `${QUEUE_FUNCTIONS}
${QUEUE_KEYS}
redis.call("HDEL", waiters, ARGV[1])
if redis.call("ZREM", queue, ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= "" and redis.call("EXISTS", lock) == 0 then announce_head(queue, waiters, ARGV[2]) end
return 1
`,
  4,
);

/** Frees a lock whoever holds it and announces the next live waiter. ARGV: release channel. Returns 1|0. */
export const QUORUM_FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:quorum-force-release",
  `${QUEUE_FUNCTIONS}
${QUEUE_KEYS}
if redis.call("DEL", lock) == 0 then return 0 end
announce_head(queue, waiters, ARGV[1])
return 1
`,
  4,
);
