import { CLOCK_TEXT, counterAtOrPast, HAND_OFF, LOCK_FUNCTIONS, NEXT_TOKEN, NOW_US, REENTER, TOKEN_BLOCK } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/**
 * Takes or re-enters every key of a set for one owner, or none: KEYS are the keys' hash tags (`RedisKeyLayout.tag`, all
 * in one Cluster slot), ARGV the owner prefix (`ownerPrefix`), ttl ms and holder label. Each key is judged as the
 * queue-aware acquire script judges one attempt that does not queue: a free key with a line goes to its first live
 * waiter (so the set never overtakes a line), a key of another owner refuses. Only when every key would be granted is
 * any written. The common case, every key free with no line, is checked and written first, with no helper defined and
 * one call for all the keys where Redis has one (EXISTS, MGET and MSET of the fencing counters). There every key whose
 * counter is behind the clock takes the clock as its token, so all of them share one hold value, built once.
 * Replies with the refusing key's remaining ttl ms (an integer); in the common case with every key's fresh token, space
 * separated, in one string (hold count 1, lease as asked), or one token alone when every key has that one; else one
 * entry per key: a fresh grant's token (a string) or a re-entry's {token, holdCount, ttl left}.
 */
export const ACQUIRE_ALL_SCRIPT = new RedisScript(
  "distlock:acquire-all",
  `local mine, ttl, holder = ARGV[1], ARGV[2], ARGV[3]
local names, fences = {}, {}
for i, tag in ipairs(KEYS) do
  names[2 * i - 1], names[2 * i] = tag .. ":lock", tag .. ":queue"
  fences[i] = tag .. ":fence"
end
${CLOCK_TEXT}
if redis.call("EXISTS", unpack(names)) == 0 then
  local lasts = redis.call("MGET", unpack(fences))
  local prefix, suffix = mine .. "1 ", " - " .. holder
  local value = prefix .. clock_text .. suffix
  local tokens, counters, shared = {}, {}, true
  for i = 1, #KEYS do
    local token, last = clock_text, lasts[i]
    if ${counterAtOrPast("last")} then
      token = string.format("%.0f", tonumber(last) + 1)
      shared = false
      redis.call("SET", names[2 * i - 1], prefix .. token .. suffix, "PX", ttl)
    else
      redis.call("SET", names[2 * i - 1], value, "PX", ttl)
    end
    counters[2 * i - 1], counters[2 * i] = fences[i], token
    tokens[i] = token
  end
  redis.call("MSET", unpack(counters))
  return shared and clock_text or table.concat(tokens, " ")
end
${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}${REENTER}
local secret = string.match(mine, "^%d+ (.*)$")
local clock = tonumber(clock_text)
local kinds = {}
for i, tag in ipairs(KEYS) do
  local lock, queue = tag .. ":lock", tag .. ":queue"
  local value = redis.call("GET", lock)
  if value then
    if read_lock(value) ~= secret then return redis.call("PTTL", lock) end
    kinds[i] = "again"
  elseif redis.call("EXISTS", queue) == 1 then
    if hand_off(lock, tag .. ":fence", queue, tag .. ":waiters", tag .. ":released", clock) then return redis.call("PTTL", lock) end
    kinds[i] = "+"
  else
    kinds[i] = "-"
  end
end
local grants = {}
for i, tag in ipairs(KEYS) do
  local lock = tag .. ":lock"
  if kinds[i] == "again" then
    local owner, count, token, mark, held_by = read_lock(redis.call("GET", lock))
    local level, left = reenter(lock, secret, count, token, mark, held_by, tonumber(ttl))
    grants[i] = {token, level, left}
  else
    local token = next_token(tag .. ":fence", clock)
    redis.call("SET", lock, lock_value(secret, 1, token, kinds[i], holder), "PX", ttl)
    grants[i] = token
  end
end
return grants
`,
  "variable",
);

/**
 * Drops one level of one owner's hold of every key of a set, as the queue-aware release script does for one key with
 * no local pass: at zero the key is freed and, for a hold others may have queued behind (line mark "+"), its token
 * block given back and the key handed to its first live waiter. KEYS are the keys' hash tags (one Cluster slot), ARGV
 * the owner prefix. The holds are read with one MGET; the common case, a last level nobody queued behind (line mark "-",
 * byte 45), is found by positions alone (no substring made) and deleted with one DEL; the rest
 * after the helpers it needs are defined. Replies 0 when every key was freed, else one hold count left per key (0 when
 * freed or handed on, -1 when not held by the owner).
 */
export const RELEASE_ALL_SCRIPT = new RedisScript(
  "distlock:release-all",
  `local mine = ARGV[1]
local locks = {}
for i, tag in ipairs(KEYS) do locks[i] = tag .. ":lock" end
local values = redis.call("MGET", unpack(locks))
local last_level = mine .. "1 "
local after = #last_level + 1
local find, byte = string.find, string.byte
local freeing, left, rest, freed = {}, {}, {}, true
for i = 1, #KEYS do
  local value = values[i]
  if value and find(value, last_level, 1, true) == 1 and byte(value, find(value, " ", after, true) + 1) == 45 then
    freeing[#freeing + 1] = locks[i]
    left[i] = 0
  elseif not value or string.sub(value, 1, #mine) ~= mine then
    left[i] = -1
    freed = false
  else
    rest[#rest + 1] = i
  end
end
if #freeing > 0 then redis.call("DEL", unpack(freeing)) end
if #rest == 0 then return freed and 0 or left end
${NOW_US}${NEXT_TOKEN}${LOCK_FUNCTIONS}${HAND_OFF}
for _, i in ipairs(rest) do
  local tag, lock, value = KEYS[i], locks[i], values[i]
  if string.sub(value, 1, #last_level) ~= last_level then
    local count = string.match(value, "^%d+", #mine + 1)
    redis.call("SET", lock, mine .. (count - 1) .. string.sub(value, #mine + #count + 1), "KEEPTTL")
    left[i] = count - 1
  else
    local token = string.match(value, "^(%d*) ", #last_level + 1)
    local fence, queue = tag .. ":fence", tag .. ":queue"
    redis.call("DEL", lock)
    redis.call("SET", fence, token)
    if redis.call("EXISTS", queue) == 1 then hand_off(lock, fence, queue, tag .. ":waiters", tag .. ":released", now_us()) end
    left[i] = 0
  end
end
return left
`,
  "variable",
);

/**
 * Moves one owner's last-level holds of a set to another owner (`LockDriver.passAll`): KEYS are the keys' hash tags (one
 * Cluster slot), ARGV the passing owner's prefix (`ownerPrefix`), the new owner's prefix, ttl ms and holder label. Every
 * key must be held by the passing owner at hold count 1, else nothing changes and the reply is -1. Each key then gets
 * the token T = max(counter + 1, clock) and reserves the `TOKEN_BLOCK` after it for passes in the new owner's process
 * (core hands them out with no server call): the counter and the stored hold's token are set to T + block, so no later
 * grant gets one of them and no release lowers the counter below them. The hold gets the new owner and holder and a
 * lease of ttl from now, and keeps its line mark as "-" or "+" (a mark naming a waiter was that waiter's hand-off, which
 * the passing owner took). Counters are read with one MGET and set with one MSET. Replies the tokens T, space separated.
 */
export const PASS_ALL_SCRIPT = new RedisScript(
  "distlock:pass-all",
  `local from, to, ttl, holder = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local last_level = from .. "1 "
local locks, fences = {}, {}
for i, tag in ipairs(KEYS) do locks[i], fences[i] = tag .. ":lock", tag .. ":fence" end
local values = redis.call("MGET", unpack(locks))
for i = 1, #KEYS do
  local value = values[i]
  if not value or string.sub(value, 1, #last_level) ~= last_level then return -1 end
end
${CLOCK_TEXT}
local lasts = redis.call("MGET", unpack(fences))
local clock_top = string.format("%.0f", tonumber(clock_text) + ${TOKEN_BLOCK})
local prefix, suffix = to .. "1 ", " " .. holder
local tokens, counters = {}, {}
for i = 1, #KEYS do
  local token, top, last, value = clock_text, clock_top, lasts[i], values[i]
  if ${counterAtOrPast("last")} then
    token = string.format("%.0f", tonumber(last) + 1)
    top = string.format("%.0f", tonumber(last) + 1 + ${TOKEN_BLOCK})
  end
  local mark = string.byte(value, string.find(value, " ", #last_level + 1, true) + 1) == 45 and " -" or " +"
  redis.call("SET", locks[i], prefix .. top .. mark .. suffix, "PX", ttl)
  counters[2 * i - 1], counters[2 * i] = fences[i], top
  tokens[i] = token
end
redis.call("MSET", unpack(counters))
return table.concat(tokens, " ")
`,
  "variable",
);
