import { drawTokenInline, NEXT_TOKEN, NOW_US } from "../scripts/lua-functions.js";
import { RedisScript } from "../scripts/redis-script.js";
import { HOLD_FUNCTIONS, OWNS_STORED_HOLD } from "../scripts/stored-hold.js";

/**
 * KEYS[1] of every semaphore script is the semaphore's hash tag (`RedisKeyLayout.tag(name)`); the script derives the
 * rest from it, so on a Cluster they all live in the tag's slot. A semaphore has one of two layouts:
 * - lone: one holder and nobody in line. `<tag>:sem:holders` is that grant as one string, a stored hold
 *   (`stored-hold.ts`) `<secret length> <owner secret><count> <fencing token> <permits> <holder label>` whose expiry is
 *   the lease (so a crashed lone holder's permits come back when the key expires); there is no state hash. Taking an
 *   idle semaphore writes just this key (and the fence), and its release deletes just this key.
 * - full: everything else. `<tag>:sem:holders` is a sorted set, owner secret → lease expiry (server ms), where a
 *   crashed holder's entry lapses by its score; `<tag>:sem:state` is a hash of `total` (the permit count the semaphore
 *   is in use with), `free` (the permits no live grant holds, so no script sums the grants), `g:<owner secret>` →
 *   "<count> <fencing token> <holder label>" per grant, and `w:<waiter id>` → "<expiry ms> <count> <ttl ms> <owner
 *   secret> <channel length> <channel><holder label>" per waiter in line (it lapses unless refreshed), where the
 *   channel is the waiting client's own; `<tag>:sem:queue` is the FIFO line, waiter ids in arrival order.
 * A second holder or a waiter arriving at a lone semaphore moves the lone grant into the full layout (its lease kept);
 * the full layout lasts until the semaphore is idle again. `<tag>:sem:fence` is the fencing counter of both, never
 * expiring (the lock's `next_token`, so tokens also follow the clock).
 * "<waiter id> <fencing token> <ttl ms> <waiters left in line>" on a waiter's channel tells it its permits were granted
 * to it (the lock's hand-off format), so it holds them without another round trip, and no other client hears of it.
 * The state hash outlives the holders and the line (so a missing hash means a lone or idle semaphore, and a present
 * one a sorted set of holders), and they outlive the longest lease and the line's lease; an idle semaphore leaves only
 * its fence.
 *
 * The acquire and release scripts handle the lone layout first (`TAKE_IDLE`, `LONE_HOLDER`, the release's first
 * lines), so its common path defines no function and reads no clock it does not need. Every script then
 * (ARGV[1] is an owner secret) runs `SEMAPHORE_HEAD` or its parts: it reads the state and, for a semaphore in use
 * drops lapsed holders, giving their permits back to `free`. A release that frees the last permits with nobody in
 * line deletes holders and state at once. Its common cases come next (a contended semaphore joined, the last permits
 * given back); then `SEMAPHORE_LINE` defines what the others need (each definition costs server time): after any
 * change that may let the head of the line in, `serve_line` grants the heads whose counts fit, in order (a head that
 * does not fit blocks those behind it), and `store` writes the state in one HDEL and one HSET.
 */
/** The semaphore's keys, derived from its hash tag (KEYS[1]); every semaphore script starts with them. */
export const SEMAPHORE_KEYS = `local tag = KEYS[1]
local holders, state, queue, fence = tag .. ":sem:holders", tag .. ":sem:state", tag .. ":sem:queue", tag .. ":sem:fence"`;

/** `keep(key, ms)`: keeps `key` (and the state hash, which outlives it) for at least twice `ms` once less than `ms` is left. */
export const KEEP_LEASES = `local function keep(key, ms)
  if redis.call("PTTL", key) >= ms then return end
  redis.call("PEXPIRE", key, ms * 2)
  if redis.call("PTTL", state) < ms * 2 then redis.call("PEXPIRE", state, ms * 2) end
end
`;

/** The semaphore's state hash read for the caller (ARGV[1]): `known` = {total, free, the caller's grant}. */
const SEMAPHORE_READ = `local known = redis.call("HMGET", state, "total", "free", "g:" .. ARGV[1])`;

/** The shared Lua functions a semaphore in use needs, and the server's time: `clock` (µs) and `now` (ms). */
const SEMAPHORE_CLOCK = `${NOW_US}${NEXT_TOKEN}
local clock = now_us()
local now = math.floor(clock / 1000)`;

/**
 * From `known` (`SEMAPHORE_READ`): `total`, `free` and the caller's grant `granted`; for a semaphore in use, drops
 * lapsed holders, giving their permits back to `free` (`pruned`), all of them if the holders key itself expired;
 * `soonest` is the earliest live lease's expiry (ms).
 */
const SEMAPHORE_PRUNE = `local total, free, granted = tonumber(known[1]), tonumber(known[2]), known[3]
local pruned, soonest = false, nil
if total then
  local first = redis.call("ZRANGE", holders, 0, 0, "WITHSCORES")
  if first[2] and tonumber(first[2]) <= now then
    pruned = true
    local lapsed = redis.call("ZRANGEBYSCORE", holders, "-inf", now, "LIMIT", 0, 1000)
    local fields = {}
    for i, member in ipairs(lapsed) do
      fields[i] = "g:" .. member
      if member == ARGV[1] then granted = nil end
    end
    for _, grant in ipairs(redis.call("HMGET", state, unpack(fields))) do
      if grant then free = free + tonumber(string.match(grant, "^(%d+)")) end
    end
    redis.call("ZREM", holders, unpack(lapsed))
    redis.call("HDEL", state, unpack(fields))
    first = redis.call("ZRANGE", holders, 0, 0, "WITHSCORES")
  end
  if not first[2] and free < total then
    -- The holders key expired before a script dropped its lapsed grants (the line keeps the state alive): none is live.
    pruned, granted, free = true, nil, total
    local fields = {}
    for _, field in ipairs(redis.call("HKEYS", state)) do
      if string.sub(field, 1, 2) == "g:" then table.insert(fields, field) end
    end
    if #fields > 0 then redis.call("HDEL", state, unpack(fields)) end
  end
  soonest = tonumber(first[2])
end
`;

/**
 * Reads a semaphore's state (`total`, `free`, the caller's grant `granted`, with `clock`/`now` the server's time) and drops
 * lapsed holders, giving their permits back to `free` (`pruned`); `soonest` is the earliest live lease's expiry (ms).
 * For a semaphore in the full layout only: a lone holder's string at `holders` reads as an idle semaphore here.
 */
export const SEMAPHORE_HEAD = `${SEMAPHORE_CLOCK}
${SEMAPHORE_KEYS}
${SEMAPHORE_READ}
${SEMAPHORE_PRUNE}`;

const SEMAPHORE_LINE = `
local longest, writes, drops = 0, {}, {}
local function grant(secret, count, ttl, holder)
  local token = next_token(fence, clock)
  redis.call("ZADD", holders, now + ttl, secret)
  table.insert(writes, "g:" .. secret)
  table.insert(writes, count .. " " .. token .. " " .. holder)
  if ttl > longest then longest = ttl end
  return token
end
local function publish(id, token, ttl, channel)
  redis.call("PUBLISH", channel, id .. " " .. token .. " " .. ttl .. " " .. redis.call("LLEN", queue))
end
local function serve_line(tell)
  for _ = 1, 1000 do
    if free <= 0 then return false end
    local id = redis.call("LPOP", queue)
    if not id then return true end
    local entry = redis.call("HGET", state, "w:" .. id)
    local expires, count, ttl, secret, bytes, rest = string.match(entry or "", "^(%d+) (%d+) (%d+) (%S+) (%d+) (.*)$")
    local live = expires and tonumber(expires) > now
    if live and tonumber(count) > free then
      redis.call("LPUSH", queue, id)
      return false
    end
    table.insert(drops, "w:" .. id)
    if live then
      count, ttl, bytes = tonumber(count), tonumber(ttl), tonumber(bytes)
      free = free - count
      tell(id, grant(secret, count, ttl, string.sub(rest, bytes + 1)), ttl, string.sub(rest, 1, bytes))
    end
  end
  return false
end
${KEEP_LEASES}local function store(line_empty)
  if line_empty and free >= total then
    redis.call("DEL", holders, state)
    return
  end
  if #drops > 0 then redis.call("HDEL", state, unpack(drops)) end
  redis.call("HSET", state, "total", total, "free", free, unpack(writes))
  if longest > 0 then keep(holders, longest) end
end
`;

/**
 * Takes an idle semaphore (neither `holders` nor `state` exists) for its lone holder: the fencing token drawn inline
 * (`drawTokenInline`), the grant written as one stored hold at `holders` (`stored-hold.ts`: `<secret length>
 * <secret><count> <token> <permits> <holder label>`) whose expiry is the lease, by one `SET … PX`. Four server calls.
 */
const TAKE_IDLE = `if redis.call("EXISTS", holders, state) == 0 then
${drawTokenInline("fence")}
  redis.call("SET", holders, #ARGV[1] .. " " .. ARGV[1] .. ARGV[5] .. " " .. token .. " " .. ARGV[4] .. " " .. ARGV[3], "PX", ARGV[2])
  return token
end`;

/**
 * A semaphore whose lone holder's grant is stored at `holders` (no `state`: `known[1]` is nil): the holder itself gets
 * its grant again, its lease starting again now; a permit count other than the stored one, or an attempt that does not
 * wait and does not fit, is refused without a write (the bound: the lone lease). Anything else moves the lone grant
 * into the full layout (its lease kept) and carries on there with `known` as read from it.
 */
const LONE_HOLDER = `if not known[1] then
${HOLD_FUNCTIONS}
  local owner, held, token, label = read_hold(redis.call("GET", holders))
  local permits, holder = string.match(label, "^(%d+) (.*)$")
  permits = tonumber(permits)
  if permits ~= tonumber(ARGV[4]) then return {permits} end
  if owner == ARGV[1] then
    redis.call("PEXPIRE", holders, ARGV[2])
    return token
  end
  local left = redis.call("PTTL", holders)
  if not ARGV[6] and held + tonumber(ARGV[5]) > permits then return math.max(1, left) end
  redis.call("DEL", holders)
  redis.call("ZADD", holders, now + left, owner)
  redis.call("HSET", state, "total", permits, "free", permits - held, "g:" .. owner, held .. " " .. token .. " " .. holder)
  -- PTTL counts from the real clock, a script's key lookups from its start: a lease ending now reads 0, and PEXPIRE 0
  -- would delete the keys just written (the grant, lapsed, is dropped below).
  redis.call("PEXPIRE", holders, math.max(1, left) * 2)
  redis.call("PEXPIRE", state, math.max(1, left) * 2)
  known = {permits, permits - held, false}
end`;

/**
 * Takes `count` permits if that many are free and nobody waits ahead, else refuses and, for a waiter, joins or
 * refreshes its place in line (one call: a contended acquire sends no attempt that only gets refused). A waiter whose
 * permits were granted to it already (by a script whose message it has not seen yet) gets that grant, its lease
 * starting again now. ARGV: owner secret, ttl ms, holder label, permits, count, and for a waiter its id, lease ms and
 * channel. Replies: a grant's fencing token (string); a refusal's retry bound in ms (integer: until the soonest holder's
 * lease ends, or the waiter's lease), for a waiter {0, the fencing counter, that bound} (every earlier grant's token is
 * at most the counter, every later one's above it: `LineRefusal`); {stored permits} when the semaphore is in use with
 * another permit count.
 */
export const SEMAPHORE_ACQUIRE_SCRIPT = new RedisScript(
  "distlock:semaphore-acquire",
  `${SEMAPHORE_KEYS}
${TAKE_IDLE}
${SEMAPHORE_CLOCK}
${SEMAPHORE_READ}
${LONE_HOLDER}
${SEMAPHORE_PRUNE}
local secret, ttl, holder, asked, count = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local id, lease, channel = ARGV[6], tonumber(ARGV[7] or "0"), ARGV[8]
if total ~= asked then
  if pruned then redis.call("HSET", state, "free", free) end
  return {total}
end
local function join()
  local entry = (now + lease) .. " " .. count .. " " .. ttl .. " " .. secret .. " " .. #channel .. " " .. channel .. holder
  if redis.call("HSET", state, "w:" .. id, entry) == 1 then redis.call("RPUSH", queue, id) end
  if redis.call("PTTL", queue) < lease then
    redis.call("PEXPIRE", queue, lease * 2)
    if redis.call("PTTL", state) < lease * 2 then redis.call("PEXPIRE", state, lease * 2) end
  end
  return {0, redis.call("GET", fence) or "", math.max(1, soonest and soonest - now or lease)}
end
if id and free == 0 and not pruned and not granted then return join() end
${SEMAPHORE_LINE}
if granted then
  redis.call("ZADD", holders, "XX", now + ttl, secret)
  if pruned then store(false) end
  keep(holders, ttl)
  return string.match(granted, "^%d+ (%d+)")
end
local line_empty, mine = false, nil
if free > 0 then
  line_empty = serve_line(function(to, token, granted_ttl, to_channel)
    if to == id then mine = token else publish(to, token, granted_ttl, to_channel) end
  end)
end
if mine then
  store(false)
  return mine
end
if line_empty and free >= count then
  local token = grant(secret, count, ttl, holder)
  free = free - count
  store(false)
  return token
end
if pruned or #drops > 0 or #writes > 0 then store(false) end
if id then return join() end
return math.max(1, soonest and soonest - now or lease)
`,
  1,
);

/**
 * Gives a grant's permits back and grants them on to the heads of the line that fit now: each grant to a waiter of
 * the caller (on channel `own`) is in the reply, the others are published. ARGV: owner secret, the caller's channel.
 * Returns 1, or 0 when not held; {1|0, then per grant to the caller's waiters: waiter id, fencing token, ttl ms, waiters left in line}.
 */
export const SEMAPHORE_RELEASE_SCRIPT = new RedisScript(
  "distlock:semaphore-release",
  `${SEMAPHORE_KEYS}
${SEMAPHORE_READ}
if not known[1] then
  local key, secret = holders, ARGV[1]
  if not (${OWNS_STORED_HOLD}) then return 0 end
  redis.call("DEL", holders)
  return 1
end
${SEMAPHORE_CLOCK}
${SEMAPHORE_PRUNE}
if not granted and not pruned then return 0 end
local held = 0
if granted then
  held = 1
  free = free + tonumber(string.match(granted, "^(%d+)"))
  if free >= total and redis.call("EXISTS", queue) == 0 then
    redis.call("DEL", holders, state)
    return held
  end
  redis.call("ZREM", holders, ARGV[1])
end
${SEMAPHORE_LINE}
if held == 1 then table.insert(drops, "g:" .. ARGV[1]) end
local told = {held}
local line_empty = serve_line(function(id, token, ttl, channel)
  if channel ~= ARGV[2] then return publish(id, token, ttl, channel) end
  table.insert(told, id)
  table.insert(told, token)
  table.insert(told, ttl)
  table.insert(told, redis.call("LLEN", queue))
end)
store(line_empty)
if #told == 1 then return held end
return told
`,
  1,
);

/**
 * A waiter gives up: drops its place in line, gives back permits granted to it that it has not heard of, and grants
 * the heads of the line that fit now (publishing each grant). ARGV: its owner secret, waiter id. Returns 1.
 */
export const SEMAPHORE_LEAVE_SCRIPT = new RedisScript(
  "distlock:semaphore-leave",
  `${SEMAPHORE_HEAD}
${SEMAPHORE_LINE}
redis.call("LREM", queue, 1, ARGV[2])
table.insert(drops, "w:" .. ARGV[2])
if granted then
  redis.call("ZREM", holders, ARGV[1])
  table.insert(drops, "g:" .. ARGV[1])
  if free then free = free + tonumber(string.match(granted, "^(%d+)")) end
end
if not total then
  redis.call("HDEL", state, unpack(drops))
  return 1
end
store(serve_line(publish))
return 1
`,
  1,
);
