import { drawTokenInline, HAND_OFF, KEEP_QUEUE, LOCK_FUNCTIONS, NEXT_TOKEN, NOW_US, PASS_LOCALLY, REENTER } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/**
 * KEYS[1] of every queue-aware script is the key's hash tag (`RedisKeyLayout.tag`); the script derives the lock's hold,
 * fencing counter, wait queue (list), waiter entries (hash) and release channel from it. All of them carry that tag,
 * so they live in the tag's Redis Cluster slot, where the cluster routes the call. The hold is a string with a line mark
 * (`LOCK_FUNCTIONS`), written with its lease by one `SET … PX`.
 * Each script's common path comes first: helpers it does not need are defined only after it (each costs server time).
 */
const LOCK_KEYS = `local tag = KEYS[1]
local lock, queue = tag .. ":lock", tag .. ":queue"`;
/** The rest of the key's names, made after a script's common path, which does not need them (each costs server time). */
const LINE_KEYS = `local fence, waiters, channel = tag .. ":fence", tag .. ":waiters", tag .. ":released"`;
const QUEUE_KEYS = `${LOCK_KEYS}
${LINE_KEYS}`;

/**
 * Takes, re-enters, claims or queues for a lock. ARGV: owner prefix (`ownerPrefix`: the owner secret's length in bytes,
 * a space, the secret; how a stored hold begins), ttl ms, holder label, and for a waiter its id and lease ms (none for
 * one attempt that does not queue).
 * A free lock goes to the first live waiter before anyone else (a newcomer never overtakes the queue).
 * Replies, by type: a fresh grant is the fencing token (a string; hold count 1, lease as asked); a refusal is the
 * holder's remaining ttl ms (an integer), for a waiter (queued) {0, the holder's token, ttl ms left}: the holder's grant
 * is the key's latest, so every earlier grant's token is at most that and every later one's above it (`LineRefusal`);
 * re-entry is {1, token, holdCount, ttl left}, and a waiter's claim of a lock handed to it earlier {2, token, holdCount,
 * ttl left}.
 */
export const QUEUED_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:queued-acquire",
  `${LOCK_KEYS}
local mine, ttl, holder, id = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] or ""
if redis.call("EXISTS", lock, queue) == 0 then
  local fence = tag .. ":fence"
${drawTokenInline("fence")}
  -- lock_value(secret, 1, token, "-", holder), written out: the helpers are defined only past this common case
  redis.call("SET", lock, mine .. "1 " .. token .. " - " .. holder, "PX", ttl)
  return token
end
local secret = string.match(mine, "^%d+ (.*)$")
${LINE_KEYS}
${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}${REENTER}${KEEP_QUEUE}
local owner, count, token, mark, held_by = read_lock(redis.call("GET", lock))
if owner == secret then
  if id ~= "" and mark == "+" .. id then
    remark(lock, secret, count, token, "+", held_by)
    return {2, token, count, redis.call("PTTL", lock)}
  end
  local level, left = reenter(lock, secret, count, token, mark, held_by, ttl)
  return {1, token, level, left}
end
local clock
if not owner then
  clock = now_us()
  local handed_to, handed_token = false, nil
  if redis.call("EXISTS", queue) == 1 then handed_to, handed_token = hand_off(lock, fence, queue, waiters, channel, clock, id) end
  if handed_to and handed_to == id then return {1, handed_token, 1, ttl} end
  if not handed_to then
    local fresh = next_token(fence, clock)
    redis.call("SET", lock, lock_value(secret, 1, fresh, "+", holder), "PX", ttl)
    return fresh
  end
  mark, token = "+", handed_token
end
if id ~= "" then
  local lease = tonumber(ARGV[5])
  local expires = string.format("%.0f", math.floor((clock or now_us()) / 1000) + lease)
  if redis.call("HSET", waiters, id, expires .. " " .. ARGV[2] .. " " .. mine .. holder) == 1 then
    redis.call("RPUSH", queue, id)
    if mark == "-" then remark(lock, owner, count, token, "+", held_by) end
  end
  keep_queue(queue, waiters, lease)
  return {0, token, redis.call("PTTL", lock)}
end
return redis.call("PTTL", lock)
`,
  1,
);

/**
 * Drops one level of a hold; at zero deletes it and, for a hold others may have queued behind (line mark `+`: every hold
 * granted through the line, which reserved a token block, is one), gives back the rest of its token block (the counter
 * goes down to the last token the hold used, which the owner check proves is the last one issued) and hands the lock
 * to the first live waiter, if any, or first passes it locally (`PASS_LOCALLY`) to a waiter of the releasing process.
 * ARGV: owner prefix (as for the acquire script), then optionally the last token the hold used ("" for its own), that
 * waiter's id ("" for none), "1" if the pass may jump earlier waiters ("0" if only in its turn), and the ids of waiters
 * of the releasing process that took the hold from it without a server call (their places in the line are dropped,
 * even if the hold was lost).
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
local value, mine = redis.call("GET", lock), ARGV[1]
if not value then return -1 end
-- The last level (hold count 1) is the common case: checked with the owner in one comparison, no number read.
if string.sub(value, 1, #mine + 2) ~= mine .. "1 " then
  if string.sub(value, 1, #mine) ~= mine then return -1 end
  local count = string.match(value, "^%d+", #mine + 1)
  redis.call("SET", lock, mine .. (count - 1) .. string.sub(value, #mine + #count + 1), "KEEPTTL")
  return count - 1
end
local token, mark = string.match(value, "^(%d*) (.)", #mine + 3)
redis.call("DEL", lock)
if mark == "-" then return 0 end
${LINE_KEYS}
redis.call("SET", fence, ARGV[2] ~= nil and ARGV[2] ~= "" and ARGV[2] or token)
if redis.call("EXISTS", queue) == 0 then return 0 end
${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}${PASS_LOCALLY}
local clock = now_us()
if ARGV[3] and ARGV[3] ~= "" then
  local passed, ttl, jumped, left = pass_locally(lock, fence, queue, waiters, ARGV[3], ARGV[4] == "1", clock)
  if passed then return {passed, ttl, jumped, left} end
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
  `${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}
${QUEUE_KEYS}
redis.call("HDEL", waiters, ARGV[2])
redis.call("LREM", queue, 1, ARGV[2])
local owner, count, token, mark, holder = read_lock(redis.call("GET", lock))
if owner ~= ARGV[1] or mark ~= "+" .. ARGV[2] then return 0 end
if count > 1 then
  remark(lock, owner, count - 1, token, "+", holder)
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
  `${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}
${QUEUE_KEYS}
if redis.call("DEL", lock) == 0 then return 0 end
if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, waiters, channel, now_us()) end
return 1
`,
  1,
);
