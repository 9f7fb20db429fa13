import { HOLD_FUNCTIONS, KEEP_QUEUE, NOW_US, RedisScript } from "@distlock/redis/internal";

/**
 * Lua helpers of a node's wait queue: a sorted set of waiter ids scored by the waiter's ticket (its client's clock when
 * it began waiting, the same on every node, so every node orders the same waiters alike) and a hash id → expiry (ms,
 * node clock). `live_head` drops expired waiters from the front and returns the first live one, its ticket and its
 * expiry, or false.
 */
export const QUEUE_FUNCTIONS = `${NOW_US}${KEEP_QUEUE}
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
 * KEYS[1] of every script here is the key's hash tag (`RedisKeyLayout.tag`); the script derives the hold (a string, see
 * `stored-hold.ts`), the fencing counter, the wait queue (sorted set) and the waiter expiries (hash) from it, and the
 * release channel where it announces. The acquire and release scripts settle their common case (a free lock nobody
 * waits for; the last level of a hold nobody waits behind) before the helpers are defined: defining them costs server
 * time on every call.
 */
const TAG_KEYS = `local tag = KEYS[1]
local lock, fence, queue = tag .. ":lock", tag .. ":fence", tag .. ":queue"`;
const WAITER_KEYS = `local waiters, channel = tag .. ":waiters", tag .. ":released"`;

/** True when counter value `a` (a decimal string) is at least `b`: compared as text, shorter first, exact at any size. */
export const AT_LEAST = `local function at_least(a, b) return #a > #b or (#a == #b and a >= b) end
`;

/**
 * Adds one level to the owner's hold at `lock` (count `count` before), keeping its token, and leaves its lease at the
 * larger of what is left and `ttl` ms; returns that lease. Needs HOLD_FUNCTIONS.
 */
export const REENTER_HOLD = `local function reenter(lock, secret, count, token, holder, ttl)
  redis.call("SET", lock, hold_value(secret, count + 1, token, holder), "KEEPTTL")
  local left = redis.call("PTTL", lock)
  if left < ttl then
    redis.call("PEXPIRE", lock, ttl)
    left = ttl
  end
  return left
end
`;

/**
 * One node's vote on a lock. ARGV: owner secret, holder label, ttl ms, proposed token (a decimal integer string, or ""
 * without fencing), waiter id ("" for an attempt that does not wait), waiter ticket, waiter lease ms, and optionally the
 * counter a grant sets (the proposal plus a token block reserved for a process cohort; the proposal itself when absent).
 * A free lock goes only to the queue's first live waiter (or a waiter whose ticket puts it ahead of the first: its
 * place had not reached this node yet when the last release here announced the first), or to anyone when no one
 * waits; then only with a proposed token above the node's never-expiring counter, which is raised to it, so every
 * node that grants stores the same token. A refused waiter joins (or refreshes its place in) the queue.
 * Returns 1 for a fresh grant of a free key nobody waited for (the proposal is its token, hold count 1), {1, token,
 * holdCount, ttlMs, waiters left in the queue} for any other grant or a re-entry (a re-entry keeps its token; the
 * waiters are absent when none), {0, ms until the holder's lease or the first waiter's entry ends} when refused,
 * {-1, counter} when the proposal was not above the counter.
 */
export const QUORUM_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:quorum-acquire",
  `${TAG_KEYS}
if redis.call("EXISTS", lock, queue) == 0 then
  local proposed = ARGV[4]
  local last = proposed ~= "" and redis.call("SET", fence, ARGV[8] or proposed, "GET")
  if not (last and (#last > #proposed or (#last == #proposed and last >= proposed))) then
    -- hold_value(ARGV[1], 1, proposed, ARGV[2]), written out: the helpers are defined only past this common case
    redis.call("SET", lock, #ARGV[1] .. " " .. ARGV[1] .. "1 " .. proposed .. " " .. ARGV[2], "PX", ARGV[3])
    return 1
  end
  redis.call("SET", fence, last)
end
${WAITER_KEYS}
${QUEUE_FUNCTIONS}${HOLD_FUNCTIONS}${AT_LEAST}${REENTER_HOLD}
local secret, ttl, proposed, id = ARGV[1], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local owner, count, token, holder = read_hold(redis.call("GET", lock))
if owner == secret then return {1, token, count + 1, reenter(lock, secret, count, token, holder, ttl)} end
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
  if last and at_least(last, proposed) then
    redis.call("SET", fence, last)
    refusal = {-1, last}
  end
end
if refusal then
  if id ~= "" then join_queue(queue, waiters, id, ARGV[6], tonumber(ARGV[7]), now or now_ms()) end
  return refusal
end
if head and id ~= "" then drop_waiter(queue, waiters, id) end
redis.call("SET", lock, hold_value(secret, 1, proposed, ARGV[2]), "PX", ttl)
return {1, proposed, 1, ttl, now and redis.call("ZCARD", queue) or 0}
`,
  1,
);

/**
 * Drops one level of a hold; at zero deletes it and announces the queue's first live waiter, if any, on the release
 * channel (so does a release that finds the lock free: its copy here expired). ARGV: owner secret, and when a waiter
 * gives back a grant of a failed attempt: its waiter id, ticket and lease ms (it keeps its place in the queue); a process
 * cohort's give-back sends "", "", "" there and then the last token it passed: the last level's release lowers the
 * counter to it (never below the hold's own token), giving back the rest of the block its grant reserved.
 * Returns the hold count left (0 when freed), or -1 when this owner does not hold the lock here.
 */
export const QUORUM_RELEASE_SCRIPT = new RedisScript(
  "distlock:quorum-release",
  `${TAG_KEYS}
local value, secret = redis.call("GET", lock), ARGV[1]
local mine = #secret .. " " .. secret
local giving_back = (ARGV[2] or "") ~= ""
local freed = false
if value and not giving_back and string.sub(value, 1, #mine + 2) == mine .. "1 " then
  local lower = ARGV[5]
  if lower then
    ${AT_LEAST}    local counter, token = redis.call("GET", fence), string.match(value, "^1 (%d*) ", #mine + 1)
    if counter and token and counter ~= lower and at_least(counter, lower) and at_least(lower, token) then redis.call("SET", fence, lower) end
  end
  redis.call("DEL", lock)
  if redis.call("EXISTS", queue) == 0 then return 0 end
  freed = true
end
${WAITER_KEYS}
${QUEUE_FUNCTIONS}${HOLD_FUNCTIONS}
if not freed then
  local owner, count, token, holder = read_hold(value)
  if owner ~= secret then
    if not owner then announce_head(queue, waiters, channel) end
    return -1
  end
  if count > 1 then
    redis.call("SET", lock, hold_value(secret, count - 1, token, holder), "KEEPTTL")
    return count - 1
  end
end
local now
if giving_back then
  redis.call("DEL", lock)
  now = now_ms()
  join_queue(queue, waiters, ARGV[2], ARGV[3], tonumber(ARGV[4]), now)
end
announce_head(queue, waiters, channel, now)
return 0
`,
  1,
);

/**
 * A waiter leaves the queue. ARGV: waiter id, and "announce" for a waiter that gives up (it announces the next one if
 * the lock is free), or "" for a waiter that won on other nodes: it stays silent, because its own release will announce
 * the next waiter here. Returns 1|0.
 */
export const LEAVE_QUORUM_QUEUE_SCRIPT = new RedisScript(
  "distlock:leave-quorum-queue",
  `${QUEUE_FUNCTIONS}
${TAG_KEYS}
${WAITER_KEYS}
redis.call("HDEL", waiters, ARGV[1])
if redis.call("ZREM", queue, ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= "" and redis.call("EXISTS", lock) == 0 then announce_head(queue, waiters, channel) end
return 1
`,
  1,
);

/** Frees a lock whoever holds it and announces the next live waiter. No ARGV. Returns 1|0. */
export const QUORUM_FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:quorum-force-release",
  `${QUEUE_FUNCTIONS}
${TAG_KEYS}
${WAITER_KEYS}
if redis.call("DEL", lock) == 0 then return 0 end
announce_head(queue, waiters, channel)
return 1
`,
  1,
);
