import { HOLD_FUNCTIONS, RedisScript } from "@distlock/redis/internal";
import { AT_LEAST, QUEUE_FUNCTIONS, REENTER_HOLD } from "./quorum-lock-scripts.js";

/**
 * One node's vote on every key of a set for one owner, all or none: KEYS are the keys' hash tags, ARGV owner secret,
 * holder label, ttl ms and the proposed token ("" without fencing), one proposal for every key. Each key is judged as
 * `QUORUM_ACQUIRE_SCRIPT` judges an attempt that does not wait: re-entered by its owner; refused when another owner
 * holds it or a live waiter heads its line (a set never overtakes a line, never joins one); outdated when the proposal
 * is not above its counter. Only when every key would be granted is any written. Replies 1 when every key was free
 * with no line and the proposal above every counter (each a fresh grant: the proposal as token, hold count 1); else
 * {1, {token, holdCount, ttlMs} per key}; {0, ms left of the first refusing key's hold or line head} when a key
 * refuses; {-1, the highest counter at or above the proposal} when only outdated counters stood in the way.
 */
export const QUORUM_ACQUIRE_ALL_SCRIPT = new RedisScript(
  "distlock:quorum-acquire-all",
  `local secret, holder, ttl, proposed = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local free = true
for _, tag in ipairs(KEYS) do
  local last = proposed ~= "" and redis.call("GET", tag .. ":fence")
  free = redis.call("EXISTS", tag .. ":lock", tag .. ":queue") == 0 and not (last and (#last > #proposed or (#last == #proposed and last >= proposed)))
  if not free then break end
end
if free then
  local value = #secret .. " " .. secret .. "1 " .. proposed .. " " .. holder
  for _, tag in ipairs(KEYS) do
    if proposed ~= "" then redis.call("SET", tag .. ":fence", proposed) end
    redis.call("SET", tag .. ":lock", value, "PX", ttl)
  end
  return 1
end
${QUEUE_FUNCTIONS}${HOLD_FUNCTIONS}${AT_LEAST}${REENTER_HOLD}
local lease = tonumber(ttl)
local again, outdated = {}, false
for i, tag in ipairs(KEYS) do
  local lock, queue = tag .. ":lock", tag .. ":queue"
  local owner = read_hold(redis.call("GET", lock))
  if owner == secret then
    again[i] = true
  elseif owner then
    return {0, redis.call("PTTL", lock)}
  else
    if redis.call("EXISTS", queue) == 1 then
      local now = now_ms()
      local head, _, expires = live_head(queue, tag .. ":waiters", now)
      if head then return {0, expires - now} end
    end
    local last = proposed ~= "" and redis.call("GET", tag .. ":fence")
    if last and at_least(last, proposed) and not (outdated and at_least(outdated, last)) then outdated = last end
  end
end
if outdated then return {-1, outdated} end
local grants = {1}
for i, tag in ipairs(KEYS) do
  local lock = tag .. ":lock"
  if again[i] then
    local _, count, token, label = read_hold(redis.call("GET", lock))
    grants[i + 1] = {token, count + 1, reenter(lock, secret, count, token, label, lease)}
  else
    if proposed ~= "" then redis.call("SET", tag .. ":fence", proposed) end
    redis.call("SET", lock, hold_value(secret, 1, proposed, holder), "PX", lease)
    grants[i + 1] = {proposed, 1, lease}
  end
end
return grants
`,
  "variable",
);

/**
 * Drops one level of one owner's hold of every key of a set, as `QUORUM_RELEASE_SCRIPT` does for one key: at zero the
 * hold is deleted and the first live waiter of the key's line, if any, announced; a key found free here (its copy
 * expired) announces its line's head too. KEYS are the keys' hash tags, ARGV the owner secret. The common case, last
 * levels nobody waits behind, is done before the helpers are defined. Replies one hold count left per key (0 when
 * freed, -1 when this owner does not hold the key here).
 */
export const QUORUM_RELEASE_ALL_SCRIPT = new RedisScript(
  "distlock:quorum-release-all",
  `local secret = ARGV[1]
local last_level = #secret .. " " .. secret .. "1 "
local left, rest, freed_lines = {}, {}, {}
for i, tag in ipairs(KEYS) do
  local lock = tag .. ":lock"
  local value = redis.call("GET", lock)
  if value and string.sub(value, 1, #last_level) == last_level then
    redis.call("DEL", lock)
    left[i] = 0
    if redis.call("EXISTS", tag .. ":queue") == 1 then freed_lines[#freed_lines + 1] = tag end
  else
    rest[#rest + 1] = i
  end
end
if #rest == 0 and #freed_lines == 0 then return left end
${QUEUE_FUNCTIONS}${HOLD_FUNCTIONS}
for _, tag in ipairs(freed_lines) do announce_head(tag .. ":queue", tag .. ":waiters", tag .. ":released") end
for _, i in ipairs(rest) do
  local tag = KEYS[i]
  local lock = tag .. ":lock"
  local owner, count, token, label = read_hold(redis.call("GET", lock))
  if owner == secret then
    redis.call("SET", lock, hold_value(secret, count - 1, token, label), "KEEPTTL")
    left[i] = count - 1
  else
    if not owner then announce_head(tag .. ":queue", tag .. ":waiters", tag .. ":released") end
    left[i] = -1
  end
end
return left
`,
  "variable",
);
