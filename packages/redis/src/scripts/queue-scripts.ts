import { HAND_OFF, KEEP_QUEUE, NOW_US, REENTER } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/** KEYS of every queue-aware script: lock hash, fencing counter, wait queue (list), waiter entries (hash). */
const QUEUE_KEYS = `local lock, fence, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]`;

/**
 * Takes, re-enters, claims or queues for a lock. ARGV: owner secret, holder label, ttl ms, waiter id ("" for one attempt
 * that does not queue), waiter lease ms, release channel.
 * A free lock goes to the first live waiter before anyone else (a newcomer never overtakes the queue).
 * Returns {1, token, holdCount, ttlMs} when granted (fresh or re-entered), {2, token, holdCount, ttlMs left} when this
 * waiter claims a lock handed to it earlier, {0, the holder's remaining ttl ms} when refused (queued if it has a waiter id).
 */
export const QUEUED_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:queued-acquire",
  `${NOW_US}${HAND_OFF}${REENTER}${KEEP_QUEUE}
${QUEUE_KEYS}
local secret, holder, ttl, id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local hold = redis.call("HMGET", lock, "owner", "token", "waiter", "count")
if hold[1] == secret then
  if id ~= "" and hold[3] == id then
    redis.call("HDEL", lock, "waiter")
    return {2, hold[2], tonumber(hold[4]), redis.call("PTTL", lock)}
  end
  local count, left = reenter(lock, ttl)
  return {1, hold[2], count, left}
end
local clock
if not hold[1] then
  clock = now_us()
  local handed_to = redis.call("EXISTS", queue) == 1 and hand_off(lock, fence, queue, waiters, ARGV[6], clock)
  if handed_to and handed_to == id then
    redis.call("HDEL", lock, "waiter")
    return {1, redis.call("HGET", lock, "token"), 1, ttl}
  end
  if not handed_to then
    local token = next_token(fence, clock)
    redis.call("HSET", lock, "owner", secret, "holder", holder, "count", 1, "token", token)
    redis.call("PEXPIRE", lock, ttl)
    return {1, token, 1, ttl}
  end
end
if id ~= "" then
  local lease = tonumber(ARGV[5])
  local expires = string.format("%.0f", math.floor((clock or now_us()) / 1000) + lease)
  if redis.call("HSET", waiters, id, expires .. " " .. ARGV[3] .. " " .. #secret .. " " .. secret .. holder) == 1 then
    redis.call("RPUSH", queue, id)
  end
  keep_queue(queue, waiters, lease)
end
return {0, redis.call("PTTL", lock)}
`,
  4,
);

/**
 * Drops one level of a hold; at zero deletes it and hands the lock to the first live waiter, if any.
 * ARGV: owner secret, release channel. Returns {held 1|0, holdCount left}.
 */
export const QUEUED_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-release",
  `${NOW_US}${HAND_OFF}
${QUEUE_KEYS}
local hold = redis.call("HMGET", lock, "owner", "count")
if hold[1] ~= ARGV[1] then return {0, 0} end
if tonumber(hold[2]) > 1 then return {1, redis.call("HINCRBY", lock, "count", -1)} end
redis.call("DEL", lock)
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, ARGV[2], now_us()) end
return {1, 0}
`,
  4,
);

/**
 * A waiter gives up: drops its queue entry and, if the lock was already handed to it, gives that level back
 * (passing the lock on at zero). ARGV: owner secret, waiter id, release channel. Returns 1 if it gave a hand-off back, else 0.
 */
export const LEAVE_QUEUE_SCRIPT = new RedisScript(
  "distlock:leave-queue",
  `${NOW_US}${HAND_OFF}
${QUEUE_KEYS}
redis.call("HDEL", waiters, ARGV[2])
redis.call("LREM", queue, 1, ARGV[2])
local hold = redis.call("HMGET", lock, "owner", "waiter", "count")
if hold[1] ~= ARGV[1] or hold[2] ~= ARGV[2] then return 0 end
if tonumber(hold[3]) > 1 then
  redis.call("HINCRBY", lock, "count", -1)
  redis.call("HDEL", lock, "waiter")
  return 1
end
redis.call("DEL", lock)
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, ARGV[3], now_us()) end
return 1
`,
  4,
);

/** Frees a lock whoever holds it and hands it to the first live waiter. ARGV: release channel. Returns 1|0. */
export const QUEUED_FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-force-release",
  `${NOW_US}${HAND_OFF}
${QUEUE_KEYS}
if redis.call("DEL", lock) == 0 then return 0 end
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, ARGV[1], now_us()) end
return 1
`,
  4,
);
