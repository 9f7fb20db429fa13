import { drawTokenInline, HAND_OFF, KEEP_QUEUE, NEXT_TOKEN, NOW_US, PASS_LOCALLY, REENTER } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/**
 * KEYS[1] of every queue-aware script is the key's hash tag (`RedisKeyLayout.tag`); the script derives the lock hash,
 * fencing counter, wait queue (list), waiter entries (hash) and release channel from it. All of them carry that tag,
 * so they live in the tag's Redis Cluster slot, where the cluster routes the call.
 * A hold that others may have queued behind carries `queued` = 1 (set by a waiter that queues on it, by a hand-off and by
 * a grant over a leftover queue), so the release of a hold nobody queued on never looks at the queue.
 * Each script's common path comes first: helpers it does not need are defined only after it (each costs server time).
 */
const LOCK_KEYS = `local tag = KEYS[1]
local lock, queue = tag .. ":lock", tag .. ":queue"`;
/** The rest of the key's names, made after a script's common path, which does not need them (each costs server time). */
const LINE_KEYS = `local fence, waiters, channel = tag .. ":fence", tag .. ":waiters", tag .. ":released"`;
const QUEUE_KEYS = `${LOCK_KEYS}
${LINE_KEYS}`;

/**
 * Takes, re-enters, claims or queues for a lock. ARGV: owner secret, ttl ms, holder label, and for a waiter its id and
 * lease ms (none for one attempt that does not queue).
 * A free lock goes to the first live waiter before anyone else (a newcomer never overtakes the queue).
 * Replies, by type: a fresh grant is the fencing token (a string; hold count 1, lease as asked); a refusal is the
 * holder's remaining ttl ms (an integer, queued if a waiter id was given); re-entry is {1, token, holdCount, ttl left},
 * and a waiter's claim of a lock handed to it earlier {2, token, holdCount, ttl left}.
 */
export const QUEUED_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:queued-acquire",
  `${LOCK_KEYS}
local secret, ttl, holder, id = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] or ""
if redis.call("EXISTS", lock, queue) == 0 then
${drawTokenInline('tag .. ":fence"')}
  redis.call("HSET", lock, "owner", secret, "holder", holder, "count", 1, "token", token)
  redis.call("PEXPIRE", lock, ttl)
  return token
end
${LINE_KEYS}
${NOW_US}${NEXT_TOKEN}${HAND_OFF}${REENTER}${KEEP_QUEUE}
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
  local handed_to = redis.call("EXISTS", queue) == 1 and hand_off(lock, fence, queue, waiters, channel, clock)
  if handed_to and handed_to == id then
    redis.call("HDEL", lock, "waiter")
    return {1, redis.call("HGET", lock, "token"), 1, ttl}
  end
  if not handed_to then
    local token = next_token(fence, clock)
    redis.call("HSET", lock, "owner", secret, "holder", holder, "count", 1, "token", token, "queued", 1)
    redis.call("PEXPIRE", lock, ttl)
    return token
  end
end
if id ~= "" then
  local lease = tonumber(ARGV[5])
  local expires = string.format("%.0f", math.floor((clock or now_us()) / 1000) + lease)
  if redis.call("HSET", waiters, id, expires .. " " .. ARGV[2] .. " " .. #secret .. " " .. secret .. holder) == 1 then
    redis.call("RPUSH", queue, id)
    redis.call("HSET", lock, "queued", 1)
  end
  keep_queue(queue, waiters, lease)
end
return redis.call("PTTL", lock)
`,
  1,
);

/**
 * Drops one level of a hold; at zero deletes it and, for a hold others may have queued behind (`queued`: every hold
 * granted through the line, which reserved a token block, is one), gives back the rest of its token block (the counter
 * goes down to the last token the hold used, which the owner check proves is the last one issued) and hands the lock
 * to the first live waiter, if any, or first passes it locally (`PASS_LOCALLY`) to a waiter of the releasing process.
 * ARGV: owner secret, then optionally the last token the hold used ("" for its own), that waiter's id ("" for none),
 * "1" if the pass may jump earlier waiters ("0" if only in its turn), and the ids of waiters of the releasing process
 * that took the hold from it without a server call (their places in the line are dropped, even if the hold was lost).
 * Returns the hold count left (0 when freed or handed on), -1 when this owner does not hold the lock, or
 * {token, ttl ms, jumped 1|0, waiters left} when it passed the lock locally.
 */
export const QUEUED_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-release",
  `${LOCK_KEYS}
for i = 5, #ARGV do
  redis.call("LREM", queue, 1, ARGV[i])
  redis.call("HDEL", tag .. ":waiters", ARGV[i])
end
local hold = redis.call("HMGET", lock, "owner", "count", "queued", "token")
if hold[1] ~= ARGV[1] then return -1 end
if tonumber(hold[2]) > 1 then return redis.call("HINCRBY", lock, "count", -1) end
redis.call("DEL", lock)
if not hold[3] then return 0 end
${LINE_KEYS}
redis.call("SET", fence, ARGV[2] ~= nil and ARGV[2] ~= "" and ARGV[2] or hold[4])
if redis.call("EXISTS", queue) == 0 then return 0 end
${NOW_US}${NEXT_TOKEN}${HAND_OFF}${PASS_LOCALLY}
local clock = now_us()
if ARGV[3] and ARGV[3] ~= "" then
  local token, ttl, jumped, left = pass_locally(lock, fence, queue, waiters, ARGV[3], ARGV[4] == "1", clock)
  if token then return {token, ttl, jumped, left} end
end
hand_off(lock, fence, queue, waiters, channel, clock)
return 0
`,
  1,
);

/**
 * A waiter gives up: drops its queue entry and, if the lock was already handed to it, gives that level back
 * (passing the lock on at zero). ARGV: owner secret, waiter id. Returns 1 if it gave a hand-off back, else 0.
 */
export const LEAVE_QUEUE_SCRIPT = new RedisScript(
  "distlock:leave-queue",
  `${NOW_US}${NEXT_TOKEN}${HAND_OFF}
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
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, channel, now_us()) end
return 1
`,
  1,
);

/** Frees a lock whoever holds it and hands it to the first live waiter. No ARGV. Returns 1|0. */
export const QUEUED_FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-force-release",
  `${NOW_US}${NEXT_TOKEN}${HAND_OFF}
${QUEUE_KEYS}
if redis.call("DEL", lock) == 0 then return 0 end
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, channel, now_us()) end
return 1
`,
  1,
);
