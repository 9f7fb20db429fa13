import { KEEP_LEASES, RedisScript, SEMAPHORE_HEAD } from "@distlock/redis/internal";
import { AT_LEAST, QUEUE_FUNCTIONS } from "../scripts/quorum-lock-scripts.js";

/**
 * One node's share of a Redlock semaphore. KEYS[1] is the semaphore's hash tag. Holders and permits are the Redis
 * backend's (`SEMAPHORE_HEAD`: `<tag>:sem:holders`, a sorted set of owner secret → lease expiry, and `<tag>:sem:state`,
 * a hash of `total`, `free` and `g:<owner secret>` → "<count> <token> <holder label>"; its renew script is shared), the
 * fencing counter `<tag>:sem:fence` holds the last token granted here, and the line is the Redlock lock's: a sorted set
 * `<tag>:sem:line` of waiter ids scored by ticket, a hash `<tag>:sem:waiters` of their expiries, and the channel
 * `<tag>:sem:released` where a node names its first live waiter whenever permits may have become free for it.
 */
const LINE_KEYS = `local line, waiters, channel = tag .. ":sem:line", tag .. ":sem:waiters", tag .. ":sem:released"`;

/**
 * One node's vote on a grant. ARGV: owner secret, holder label, lease ms, permits, count, proposed token ("" without
 * fencing), waiter id ("" for an attempt that does not wait), its ticket and lease ms. Granted when `count` permits are
 * free here, nobody live waits ahead (the first waiter, or a waiter whose ticket is ahead of it), and the proposal is
 * above the counter (which it becomes). A refused waiter joins or refreshes its place. Replies {1, token, 1, ttl ms, waiters
 * left} (the lock script's grant)
 * (also when this owner already holds here: its lease starts again), {0, ms until a lease or the first place ends},
 * {-1, counter} for an outdated proposal, {-2, permits} when the semaphore is in use here with another count.
 */
export const QUORUM_SEMAPHORE_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:quorum-semaphore-acquire",
  `${SEMAPHORE_HEAD}
${LINE_KEYS}
${QUEUE_FUNCTIONS}${AT_LEAST}${KEEP_LEASES}
local secret, holder, ttl, asked, count, proposed = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local id, ticket = ARGV[7], tonumber(ARGV[8] or "")
if pruned then redis.call("HSET", state, "free", free) end
if total and total ~= asked then return {-2, total} end
if granted then
  redis.call("ZADD", holders, "XX", now + ttl, secret)
  keep(holders, ttl)
  return {1, string.match(granted, "^%d+ (%d*)"), 1, ttl, redis.call("ZCARD", line)}
end
if not total then total, free = asked, asked end
local head, head_ticket, head_expires = live_head(line, waiters, now)
local ahead = ticket and head and (ticket < head_ticket or (ticket == head_ticket and id < head))
local refusal
if head and head ~= id and not ahead then
  refusal = {0, head_expires - now}
elseif count > free then
  refusal = {0, math.max(1, (soonest or now + 1) - now)}
elseif proposed ~= "" then
  local last = redis.call("GET", fence)
  if last and at_least(last, proposed) then refusal = {-1, last} end
end
if refusal then
  if id ~= "" then join_queue(line, waiters, id, ARGV[8], tonumber(ARGV[9]), now) end
  return refusal
end
if proposed ~= "" then redis.call("SET", fence, proposed) end
if id ~= "" then drop_waiter(line, waiters, id) end
free = free - count
redis.call("ZADD", holders, now + ttl, secret)
redis.call("HSET", state, "total", total, "free", free, "g:" .. secret, count .. " " .. proposed .. " " .. holder)
keep(holders, ttl)
if free > 0 then announce_head(line, waiters, channel, now) end
return {1, proposed, 1, ttl, redis.call("ZCARD", line)}
`,
  1,
);

/**
 * Gives a grant's permits back and names the first live waiter (also when the grant had lapsed here: its permits came
 * back too). ARGV: owner secret, and for the undo of a waiter's failed attempt its id, ticket and lease ms (it takes its
 * place again where the grant had removed it). Returns 1, or 0 when this owner held nothing here.
 */
export const QUORUM_SEMAPHORE_RELEASE_SCRIPT = new RedisScript(
  "distlock:quorum-semaphore-release",
  `${SEMAPHORE_HEAD}
${LINE_KEYS}
${QUEUE_FUNCTIONS}
if (ARGV[2] or "") ~= "" then join_queue(line, waiters, ARGV[2], ARGV[3], tonumber(ARGV[4]), now) end
if not total then return 0 end
if granted then
  free = free + tonumber(string.match(granted, "^(%d+)"))
  redis.call("ZREM", holders, ARGV[1])
  redis.call("HDEL", state, "g:" .. ARGV[1])
end
if free >= total and redis.call("EXISTS", line) == 0 then
  redis.call("DEL", holders, state)
else
  if granted or pruned then redis.call("HSET", state, "free", free) end
  if free > 0 then announce_head(line, waiters, channel, now) end
end
return granted and 1 or 0
`,
  1,
);

/**
 * A waiter leaves the line. ARGV: waiter id, and "announce" for a waiter that gives up (the next one may fit now), or
 * "" for one that won on other nodes. Returns 1|0.
 */
export const LEAVE_SEMAPHORE_LINE_SCRIPT = new RedisScript(
  "distlock:leave-semaphore-line",
  `${QUEUE_FUNCTIONS}
local tag = KEYS[1]
${LINE_KEYS}
redis.call("HDEL", waiters, ARGV[1])
if redis.call("ZREM", line, ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= "" then announce_head(line, waiters, channel) end
return 1
`,
  1,
);

/**
 * One node's view. ARGV: "" (no owner). Returns {0} when nobody holds or waits here, else {permits, live waiters, then per live
 * holder: a digest of its owner secret (the same on every node, never the secret), holder label, count, token, ms left}.
 */
export const QUORUM_SEMAPHORE_INSPECT_SCRIPT = new RedisScript(
  "distlock:quorum-semaphore-inspect",
  `${SEMAPHORE_HEAD}
${LINE_KEYS}
if not total then return {0} end
if pruned then redis.call("HSET", state, "free", free) end
local queued = 0
for _, expires in ipairs(redis.call("HVALS", waiters)) do
  if tonumber(expires) > now then queued = queued + 1 end
end
local reply = {total, queued}
local live = redis.call("ZRANGEBYSCORE", holders, "(" .. now, "+inf", "WITHSCORES")
for i = 1, #live, 2 do
  local count, token, holder = string.match(redis.call("HGET", state, "g:" .. live[i]) or "", "^(%d+) (%d*) (.*)$")
  if count then
    for _, field in ipairs({redis.sha1hex(live[i]), holder, tonumber(count), token, tonumber(live[i + 1]) - now}) do
      table.insert(reply, field)
    end
  end
end
if #reply == 2 and queued == 0 then return {0} end
return reply
`,
  1,
);
