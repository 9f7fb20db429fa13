import { FREE_RECORD_HEAD, liveHoldStartingWith, RECORD_FUNCTIONS } from "./lock-record.js";
import { counterAtOrPast, HAND_OFF, KEEP_QUEUE, NOW_TEXT, PASS_LOCALLY, REENTER, TOKEN_AFTER, TOKEN_BLOCK } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/**
 * KEYS[1] of every queue-aware script is the key's hash tag (`RedisKeyLayout.tag`); the script derives the lock's record
 * (`lock-record.ts`), wait queue (list), waiter entries (hash) and release channel from it. All of them carry that tag,
 * so they live in the tag's Redis Cluster slot, where the cluster routes the call.
 * Each script's common path comes first: helpers it does not need are defined only after it (each costs server time).
 */
const LOCK_KEY = `local tag = KEYS[1]
local lock = tag .. ":lock"`;
/** The rest of the key's names, made after a script's common path, which does not need them (each costs server time). */
const LINE_KEYS = `local queue, waiters, channel = tag .. ":queue", tag .. ":waiters", tag .. ":released"`;
const QUEUE_KEYS = `${LOCK_KEY}
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
  `${LOCK_KEY}
local mine, ttl, holder, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4] or ""
local value = redis.call("GET", lock)
${NOW_TEXT}
if (value and string.sub(value, 1, 14) == "${FREE_RECORD_HEAD}") or (not value and redis.call("EXISTS", tag .. ":queue") == 0) then
  local token, last = clock_text, value and string.sub(value, 15)
  if ${counterAtOrPast("last")} then token = string.format("%.0f", tonumber(last) + 1) end
  -- write_hold(lock, deadline_after(now, ttl), secret, 1, token, "-", holder), written out: the helpers are defined only past this common case
  redis.call("SET", lock, "R" .. string.format("%.0f", tonumber(now) + ttl) .. mine .. "1 " .. token .. " - " .. holder)
  return token
end
local secret = string.match(mine, "^%d+ (.*)$")
${LINE_KEYS}
${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}${REENTER}${KEEP_QUEUE}
local clock = tonumber(clock_text)
local owner, count, token, mark, held_by, deadline, left = read_record(lock, value, now)
if owner == secret then
  if id ~= "" and mark == "+" .. id then
    write_hold(lock, deadline, secret, count, token, "+", held_by)
    return {2, token, count, left}
  end
  local level, lease_left = reenter(lock, secret, count, token, mark, held_by, deadline, left, now, ttl)
  return {1, token, level, lease_left}
end
if not owner then
  local floor, lined = count, redis.call("EXISTS", queue) == 1
  local handed_to, handed_token = false, nil
  if lined then handed_to, handed_token = hand_off(lock, floor, queue, waiters, channel, clock, now, id) end
  if handed_to and handed_to == id then return {1, handed_token, 1, tonumber(ttl)} end
  if not handed_to then
    local fresh = token_after(floor, clock)
    write_hold(lock, deadline_after(now, ttl), secret, 1, fresh, lined and "+" or "-", holder)
    return fresh
  end
  owner, count, token, mark, held_by, deadline, left = read_record(lock, redis.call("GET", lock), now)
end
if id ~= "" then
  local lease = tonumber(ARGV[5])
  local expires = string.format("%.0f", math.floor(clock / 1000) + lease)
  if redis.call("HSET", waiters, id, expires .. " " .. ttl .. " " .. mine .. holder) == 1 then
    redis.call("RPUSH", queue, id)
    if mark == "-" and deadline then write_hold(lock, deadline, owner, count, token, "+", held_by) end
  end
  keep_queue(queue, waiters, lease)
  return {0, token, left}
end
return left
`,
  1,
);

/**
 * Drops one level of a live hold; at zero frees it (the record keeps the last token the hold used) and, for a hold others
 * may have queued behind (line mark `+`: every hold granted through the line, which reserved a token block, is one),
 * hands the lock to the first live waiter, if any, or first passes it locally (`PASS_LOCALLY`) to a waiter of the
 * releasing process; the next grant's token is above the last one the hold used, so the rest of its block is given back.
 * ARGV: owner prefix (as for the acquire script), then optionally the last token the hold used ("" for its own), that
 * waiter's id ("" for none), "1" if the pass may jump earlier waiters ("0" if only in its turn), and the ids of waiters
 * of the releasing process that took the hold from it without a server call (their places in the line are dropped,
 * even if the hold was lost).
 * Returns the hold count left (0 when freed or handed on), -1 when this owner does not hold the lock, or
 * {token, ttl ms, jumped 1|0, waiters left} when it passed the lock locally.
 */
export const QUEUED_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-release",
  `${LOCK_KEY}
for i = 5, #ARGV do
  redis.call("LREM", tag .. ":queue", 1, ARGV[i])
  redis.call("HDEL", tag .. ":waiters", ARGV[i])
end
local value, mine = redis.call("GET", lock), ARGV[1]
if not value then return -1 end
${NOW_TEXT}
local at = 15 + #mine
if not ${liveHoldStartingWith("value", "mine", "now")} then return -1 end
-- The last level (hold count 1) is the common case: checked with one comparison, no number read.
if string.sub(value, at, at + 1) ~= "1 " then
  local count = string.match(value, "^%d+", at)
  redis.call("SET", lock, string.sub(value, 1, at - 1) .. (count - 1) .. string.sub(value, at + #count))
  return count - 1
end
local token, mark = string.match(value, "^(%d*) (.)", at + 2)
local last = ARGV[2] ~= nil and ARGV[2] ~= "" and ARGV[2] or token
if mark == "-" then
  redis.call("SET", lock, "${FREE_RECORD_HEAD}" .. last)
  return 0
end
${LINE_KEYS}
${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}${PASS_LOCALLY}
local clock, floor = tonumber(clock_text), tonumber(last)
if redis.call("EXISTS", queue) == 1 then
  if ARGV[3] and ARGV[3] ~= "" then
    local passed, ttl, jumped, left = pass_locally(lock, floor, queue, waiters, ARGV[3], ARGV[4] == "1", clock, now)
    if passed then return {passed, ttl, jumped, left} end
  end
  if hand_off(lock, floor, queue, waiters, channel, clock, now) then return 0 end
end
set_free(lock, last, queue)
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
  `${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}
${QUEUE_KEYS}
redis.call("HDEL", waiters, ARGV[2])
redis.call("LREM", queue, 1, ARGV[2])
${NOW_TEXT}
local owner, count, token, mark, holder, deadline = read_record(lock, redis.call("GET", lock), now)
if owner ~= ARGV[1] or mark ~= "+" .. ARGV[2] then return 0 end
if count > 1 then
  write_hold(lock, deadline, owner, count - 1, token, "+", holder)
  return 1
end
-- The waiter never claimed the hand-off, so nobody used the token block it reserved.
if not (redis.call("EXISTS", queue) == 1 and hand_off(lock, tonumber(token), queue, waiters, channel, tonumber(clock_text), now)) then
  set_free(lock, token, queue)
end
return 1
`,
  1,
);

/**
 * Frees a lock whoever holds it and hands it to the first live waiter; the next token is above the hold's token block,
 * which its process may have been using. No ARGV. Returns 1|0.
 */
export const QUEUED_FORCE_RELEASE_SCRIPT = new RedisScript(
  "distlock:queued-force-release",
  `${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}
${QUEUE_KEYS}
local value = redis.call("GET", lock)
if value and string.byte(value, 1) ~= 82 then return redis.call("DEL", lock) end
${NOW_TEXT}
local owner, count, token = read_record(lock, value, now)
if not owner then return 0 end
local floor = tonumber(token) + ${TOKEN_BLOCK}
if not (redis.call("EXISTS", queue) == 1 and hand_off(lock, floor, queue, waiters, channel, tonumber(clock_text), now)) then
  set_free(lock, string.format("%.0f", floor), queue)
end
return 1
`,
  1,
);
