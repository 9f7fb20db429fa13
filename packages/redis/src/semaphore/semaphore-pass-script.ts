import { NEXT_TOKEN, NOW_US } from "../scripts/lua-functions.js";
import { RedisScript } from "../scripts/redis-script.js";
import { KEEP_LEASES, SEMAPHORE_KEYS } from "./semaphore-scripts.js";

/** The pass script's refusals (its grant is a reply array instead). */
export const PassRefusal = Object.freeze({
  /** The passing grant is no longer live on the server (lapsed, deleted): it was lost. */
  lost: 0,
  /** The waiter named has no place in the server's line any more (granted there, or gone). */
  notInLine: -1,
  /** A waiter for more than one permit is first in the server's line: nobody passes ahead of it. */
  largerFirst: -2,
});

/**
 * Passes a live one-permit grant of this process (a permit cohort's, see "Permit cohorts" in the README) from the
 * holder that released it to the next holder here, in one step: owner-checked (the passing secret's grant is in the
 * state hash, so the semaphore is in the full layout and `holders` a sorted set, and its lease has not ended), it draws the next fencing token (the lock's `next_token`, so tokens stay ordered with every other grant of the
 * semaphore), moves the grant to the new holder's own secret with that token and a lease of ttl from now, and, for a
 * waiter that also has a place in the server's line, drops that place. The permit count in use never changes.
 * KEYS[1]: the semaphore's hash tag. ARGV: passing owner secret, new owner secret, ttl ms, the waiter's id in the
 * server's line or "". Replies {token, waiters in line, free permits}, or a `PassRefusal`.
 */
export const SEMAPHORE_PASS_SCRIPT = new RedisScript(
  "distlock:semaphore-pass",
  `${NOW_US}${NEXT_TOKEN}
${SEMAPHORE_KEYS}
local from, to, ttl, id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local clock = now_us()
local now = math.floor(clock / 1000)
local head = redis.call("LINDEX", queue, 0)
local known = redis.call("HMGET", state, "free", "g:" .. from, "w:" .. (head or ""))
local free, grant, first = known[1], known[2], known[3]
if not grant then return ${PassRefusal.lost} end
if tonumber(redis.call("ZSCORE", holders, from) or "0") <= now then return ${PassRefusal.lost} end
local expires, count = string.match(first or "", "^(%d+) (%d+) ")
if head ~= id and count and tonumber(count) > 1 and tonumber(expires) > now then return ${PassRefusal.largerFirst} end
if id ~= "" then
  if redis.call("HDEL", state, "w:" .. id) == 0 then return ${PassRefusal.notInLine} end
  redis.call("LREM", queue, 1, id)
end
local token = next_token(fence, clock)
redis.call("ZREM", holders, from)
redis.call("ZADD", holders, now + ttl, to)
redis.call("HDEL", state, "g:" .. from)
redis.call("HSET", state, "g:" .. to, "1 " .. token .. " " .. string.match(grant, "^%d+ %d+ (.*)$"))
${KEEP_LEASES}keep(holders, ttl)
return {token, redis.call("LLEN", queue), tonumber(free)}
`,
  1,
);
