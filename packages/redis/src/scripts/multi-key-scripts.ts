import { FREE_RECORD_HEAD, liveHoldStartingWith, RECORD_FUNCTIONS } from "./lock-record.js";
import { counterAtOrPast, HAND_OFF, NOW_TEXT, REENTER, TOKEN_AFTER, TOKEN_BLOCK } from "./lua-functions.js";
import { RedisScript } from "./redis-script.js";

/**
 * Lua: locals `locks` (KEYS: the keys' records, `RedisKeyLayout.lockKey`, all in one Cluster slot), their `values` (one
 * MGET), `clock_text` and `now`; `tag_of(lock)`, the hash tag the key's other names derive from.
 */
const READ_SET = `local locks = KEYS
local values = redis.call("MGET", unpack(locks))
local function tag_of(lock) return string.sub(lock, 1, -6) end
${NOW_TEXT}`;

/**
 * Takes or re-enters every key of a set for one owner, or none: KEYS are the keys' records (`READ_SET`), ARGV the owner
 * prefix (`ownerPrefix`), ttl ms and holder label. Each key is judged as the
 * queue-aware acquire script judges one attempt that does not queue: a free key with a line goes to its first live
 * waiter (so the set never overtakes a line), a key of another owner refuses. Only when every key would be granted is
 * any written. The common case, every record free (a name never used: with no line either), is checked and written
 * first, with no helper defined: the records are read with one MGET and written with one MSET. There every key whose
 * last token is behind the clock takes the clock as its token, so all of them share one hold value, built once.
 * Replies with the refusing key's remaining ttl ms (an integer); in the common case with every key's fresh token, space
 * separated, in one string (hold count 1, lease as asked), or one token alone when every key has that one; else one
 * entry per key: a fresh grant's token (a string) or a re-entry's {token, holdCount, ttl left}.
 */
export const ACQUIRE_ALL_SCRIPT = new RedisScript(
  "distlock:acquire-all",
  `local mine, ttl, holder = ARGV[1], ARGV[2], ARGV[3]
${READ_SET}
local common, unused = true, {}
for i = 1, #KEYS do
  local value = values[i]
  if not value then
    unused[#unused + 1] = tag_of(locks[i]) .. ":queue"
  elseif string.find(value, "${FREE_RECORD_HEAD}", 1, true) ~= 1 then
    common = false
    break
  end
end
if common and (#unused == 0 or redis.call("EXISTS", unpack(unused)) == 0) then
  local prefix, suffix = "R" .. string.format("%.0f", tonumber(now) + ttl) .. mine .. "1 ", " - " .. holder
  local value = prefix .. clock_text .. suffix
  local writes, tokens, shared = {}, {}, true
  for i = 1, #KEYS do
    local token, last = clock_text, values[i] and string.sub(values[i], 15)
    writes[2 * i - 1] = locks[i]
    if ${counterAtOrPast("last")} then
      token = string.format("%.0f", tonumber(last) + 1)
      shared = false
      writes[2 * i] = prefix .. token .. suffix
    else
      writes[2 * i] = value
    end
    tokens[i] = token
  end
  redis.call("MSET", unpack(writes))
  return shared and clock_text or table.concat(tokens, " ")
end
${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}${REENTER}
local secret = string.match(mine, "^%d+ (.*)$")
local clock = tonumber(clock_text)
local held, floors, marks = {}, {}, {}
for i, lock in ipairs(locks) do
  local tag = tag_of(lock)
  local queue = tag .. ":queue"
  local owner, count, token, mark, held_by, deadline, left = read_record(lock, values[i], now)
  if owner then
    if owner ~= secret then return left end
    held[i] = {count, token, mark, held_by, deadline, left}
  elseif redis.call("EXISTS", queue) == 1 then
    if hand_off(lock, count, queue, tag .. ":waiters", tag .. ":released", clock, now) then
      local _, _, _, _, _, _, handed_left = read_record(lock, redis.call("GET", lock), now)
      return handed_left
    end
    floors[i], marks[i] = count, "+"
  else
    floors[i], marks[i] = count, "-"
  end
end
local deadline = deadline_after(now, ttl)
local grants = {}
for i = 1, #KEYS do
  local again = held[i]
  if again then
    local level, left = reenter(locks[i], secret, again[1], again[2], again[3], again[4], again[5], again[6], now, ttl)
    grants[i] = {again[2], level, left}
  else
    local token = token_after(floors[i], clock)
    write_hold(locks[i], deadline, secret, 1, token, marks[i], holder)
    grants[i] = token
  end
end
return grants
`,
  "variable",
);

/**
 * Drops one level of one owner's live hold of every key of a set, as the queue-aware release script does for one key
 * with no local pass: at zero the key is freed (its record keeps the hold's token) and, for a hold others may have
 * queued behind (line mark "+"), handed to its first live waiter. KEYS are the keys' records (`READ_SET`), ARGV the
 * owner prefix. The records are read with one MGET; the common case, a last level nobody queued behind (line mark
 * "-", byte 45), is found by positions and freed with one MSET; the rest after the helpers it needs are defined.
 * Replies 0 when every key was freed, else one hold count left per key (0 when freed or handed on, -1 when not held by
 * the owner).
 */
export const RELEASE_ALL_SCRIPT = new RedisScript(
  "distlock:release-all",
  `local mine = ARGV[1]
${READ_SET}
local last_level = mine .. "1 "
local at = 15 + #last_level
local find, byte, sub = string.find, string.byte, string.sub
local frees, free_values, left, rest, freed = {}, {}, {}, {}, true
for i = 1, #KEYS do
  local value = values[i]
  if not ${liveHoldStartingWith("value", "mine", "now")} then
    left[i] = -1
    freed = false
  else
    local space = find(value, last_level, 15, true) == 15 and find(value, " ", at, true)
    if space and byte(value, space + 1) == 45 then
      local token = sub(value, at, space - 1)
      local free = free_values[token]
      if not free then
        free = "${FREE_RECORD_HEAD}" .. token
        free_values[token] = free
      end
      frees[#frees + 1], frees[#frees + 2] = locks[i], free
      left[i] = 0
    else
      rest[#rest + 1] = i
    end
  end
end
if #frees > 0 then redis.call("MSET", unpack(frees)) end
if #rest == 0 then return freed and 0 or left end
${RECORD_FUNCTIONS}${TOKEN_AFTER}${HAND_OFF}
local clock = tonumber(clock_text)
for _, i in ipairs(rest) do
  local lock, value = locks[i], values[i]
  local tag = tag_of(lock)
  if sub(value, 15, at - 1) ~= last_level then
    local count = string.match(value, "^%d+", 15 + #mine)
    redis.call("SET", lock, sub(value, 1, 14 + #mine) .. (count - 1) .. sub(value, 15 + #mine + #count))
    left[i] = count - 1
  else
    local token, queue = string.match(value, "^(%d*) ", at), tag .. ":queue"
    if not (redis.call("EXISTS", queue) == 1 and hand_off(lock, tonumber(token), queue, tag .. ":waiters", tag .. ":released", clock, now)) then
      set_free(lock, token, queue)
    end
    left[i] = 0
  end
end
return left
`,
  "variable",
);

/**
 * Moves one owner's live last-level holds of a set to another owner (`LockDriver.passAll`): KEYS are the keys' records
 * (`READ_SET`), ARGV the passing owner's prefix (`ownerPrefix`), the new owner's prefix, ttl ms and holder label.
 * Every key must be held by the passing owner at hold count 1, else nothing changes and the reply is -1. Each key then
 * gets the token T = max(floor + 1, clock), where the floor is the hold's token (past its block for a hold granted
 * through the line, which its process may have used), and reserves the `TOKEN_BLOCK` after it for passes in the new
 * owner's process (core hands them out with no server call): the record's token is set to T + block, so no later grant
 * gets one of them and no release lowers the next token below them. The hold gets the new owner and holder and a lease
 * of ttl from now, and keeps its line mark as "-" or "+" (a mark naming a waiter was that waiter's hand-off, which the
 * passing owner took). Records are read with one MGET and written with one MSET. Replies the tokens T, space separated.
 */
export const PASS_ALL_SCRIPT = new RedisScript(
  "distlock:pass-all",
  `local from, to, ttl, holder = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
${READ_SET}
local last_level = from .. "1 "
local at = 15 + #last_level
for i = 1, #KEYS do
  local value = values[i]
  if not ${liveHoldStartingWith("value", "last_level", "now")} then return -1 end
end
local clock = tonumber(clock_text)
local prefix, suffix = "R" .. string.format("%.0f", tonumber(now) + ttl) .. to .. "1 ", " " .. holder
local writes, tokens = {}, {}
for i = 1, #KEYS do
  local value = values[i]
  local space = string.find(value, " ", at, true)
  local minus = string.byte(value, space + 1) == 45
  local floor = tonumber(string.sub(value, at, space - 1)) + (minus and 0 or ${TOKEN_BLOCK})
  local token = clock > floor and clock or floor + 1
  writes[2 * i - 1], writes[2 * i] = locks[i], prefix .. string.format("%.0f", token + ${TOKEN_BLOCK}) .. (minus and " -" or " +") .. suffix
  tokens[i] = string.format("%.0f", token)
end
redis.call("MSET", unpack(writes))
return table.concat(tokens, " ")
`,
  "variable",
);
