/**
 * Lua functions shared by several scripts, pasted in front of a script's body (a script cannot call another).
 * Each script that uses them reads the server clock once: `now_us()` or `CLOCK_TEXT`.
 */

/** Server time in µs (TIME), exact below 2^53. */
export const NOW_US = `
local function now_us()
  local now = redis.call("TIME")
  return tonumber(now[1]) * 1000000 + tonumber(now[2])
end
`;

/**
 * Re-enters a live hold read by `read_record`: one more level, and the lease extended to `ttl` ms if less is left.
 * Returns the count and the lease left. Needs `RECORD_FUNCTIONS` defined before it.
 */
export const REENTER = `
local function reenter(lock, secret, count, token, mark, holder, deadline, left, now, ttl)
  if left < tonumber(ttl) then
    deadline, left = deadline_after(now, ttl), tonumber(ttl)
  end
  write_hold(lock, deadline, secret, count + 1, token, mark, holder)
  return count + 1, left
end
`;

/** Keeps a wait queue and its entries alive at least twice a waiter's lease past this moment. */
export const KEEP_QUEUE = `
local function keep_queue(queue, waiters, lease)
  if redis.call("PTTL", queue) < lease * 2 then
    redis.call("PEXPIRE", queue, lease * 2)
    redis.call("PEXPIRE", waiters, lease * 2)
  end
end
`;

/**
 * How many fencing tokens past its own a lock grant through the line reserves (a grant of a free key with an empty line
 * reserves none): the holder's process may hand the hold on to its own next acquirers without a server call, each with
 * the next token of the block (see "Process cohorts" in the README). A hold that lapsed may have used them all.
 */
export const TOKEN_BLOCK = 1024;

/**
 * `token_after(floor, clock)`: the token of a lock grant on a name whose record (`read_record`) says every next token
 * must exceed `floor`: max(floor + 1, `clock`), so it rises even if the record was lost as long as the clock does not
 * go back.
 */
export const TOKEN_AFTER = `
local function token_after(floor, clock)
  if clock > floor then return string.format("%.0f", clock) end
  return string.format("%.0f", floor + 1)
end
`;

/**
 * `next_token(fence, clock, block)`: the next fencing token of a key, max(counter + 1, `clock`), kept in the
 * never-expiring counter `fence` (a semaphore's), so it rises even if the counter was lost as long as the clock does not go back. The
 * counter is set to the token plus `block` (optional; none: the token itself): the next `block` tokens are the holder's
 * to use, and any later grant's token is above them. SET … GET (Redis 6.2+) swaps the counter and reads the old value in
 * one call.
 */
export const NEXT_TOKEN = `
local function next_token(fence, clock, block)
  block = block or 0
  local token = string.format("%.0f", clock)
  local last = tonumber(redis.call("SET", fence, string.format("%.0f", clock + block), "GET") or "0")
  if last >= clock then
    token = string.format("%.0f", last + 1)
    redis.call("SET", fence, string.format("%.0f", last + 1 + block))
  end
  return token
end
`;

/** Lua: local `clock_text`, the server's time in µs as decimal text (TIME's seconds and zero-padded microseconds). */
export const CLOCK_TEXT = `local now = redis.call("TIME")
local clock_text = now[1] .. string.rep("0", 6 - #now[2]) .. now[2]`;

/** Lua: locals `clock_text` (`CLOCK_TEXT`) and `now`, the server's time in ms as 13 digits (how lock records keep deadlines). */
export const NOW_TEXT = `${CLOCK_TEXT}
local now = string.sub(clock_text, 1, 13)`;

/**
 * Lua condition: the fencing counter's text `last` (false when there is none) is at or past local `token` (decimal
 * text of the clock), compared by length and then as text, so that the next token is `last` + 1 (`next_token`'s rule
 * without a block, on text).
 */
export function counterAtOrPast(last: string): string {
  return `${last} and (#${last} > #token or (#${last} == #token and ${last} >= token))`;
}

/**
 * A fresh grant's token drawn inline (where defining `now_us` and `next_token` first would cost a closure each per call):
 * the clock (`CLOCK_TEXT`), raised past the counter (`counterAtOrPast`), which is set to it. The common path formats no
 * number (each conversion costs server time). Sets local `token`; `fence` is a Lua expression naming the counter.
 */
export function drawTokenInline(fence: string): string {
  return `${CLOCK_TEXT}
local token = clock_text
local last = redis.call("SET", ${fence}, token, "GET")
if ${counterAtOrPast("last")} then
  token = string.format("%.0f", tonumber(last) + 1)
  redis.call("SET", ${fence}, token)
end`;
}

/**
 * The wait queue of a key: a list of waiter ids in arrival order, and a hash
 * id → "<expires ms> <ttl ms> <owner secret's length in bytes> <owner secret><holder>" (both may contain spaces).
 * `live_entry` reads an entry: its owner secret, holder and ttl, or nil when it has expired or cannot be read (e.g.
 * written by an older client). `grant_waiter` gives the free lock to a waiter: a new token, its owner and ttl, marked
 * with its id (so its next attempt claims it instead of re-entering) unless that attempt is the one granting it
 * (`claimer`), and as one others may queue behind.
 * `hand_off` gives a free lock to the first waiter whose entry is live (skipping and dropping dead and unreadable ones)
 * and publishes "<id> <token> <ttl> <waiters left in the queue>". `floor` is the token every grant must exceed
 * (`read_record`), `clock` the server's µs and `now` its ms text. Needs `TOKEN_AFTER` and `RECORD_FUNCTIONS` defined
 * before it. Returns the id it handed to and the token, or false when no live waiter is left (the record unchanged).
 */
export const HAND_OFF = `
local function live_entry(entry, clock)
  local expires, ttl, secret_bytes, rest = string.match(entry, "^(%d+) (%d+) (%d+) (.*)$")
  if not expires or tonumber(expires) <= math.floor(clock / 1000) then return nil end
  local bytes = tonumber(secret_bytes)
  return string.sub(rest, 1, bytes), string.sub(rest, bytes + 1), ttl
end
local function grant_waiter(lock, floor, id, secret, holder, ttl, clock, now, claimer)
  local token = token_after(floor, clock)
  write_hold(lock, deadline_after(now, ttl), secret, 1, token, id == claimer and "+" or "+" .. id, holder)
  return token
end
local function hand_off(lock, floor, queue, waiters, channel, clock, now, claimer)
  for _ = 1, 1000 do
    local id = redis.call("LPOP", queue)
    if not id then return false end
    local entry = redis.call("HGET", waiters, id)
    if entry then
      redis.call("HDEL", waiters, id)
      local secret, holder, ttl = live_entry(entry, clock)
      if secret then
        local token = grant_waiter(lock, floor, id, secret, holder, ttl, clock, now, claimer)
        redis.call("PUBLISH", channel, id .. " " .. token .. " " .. ttl .. " " .. redis.call("LLEN", queue))
        return id, token
      end
    end
  end
  return false
end
`;

/**
 * A local pass: gives a free lock to waiter `id` of the releasing process, if its entry is live, without a message
 * (that process delivers the grant itself). Allowed when `id` is first in line, or when `may_jump` (the process's bound
 * of passes over earlier waiters is not spent). Needs `HAND_OFF` (its `live_entry` and `grant_waiter`) defined before it.
 * Returns the token, the ttl, 1 if it jumped the line (else 0) and the waiters left in the queue, or false when it passed nothing.
 */
export const PASS_LOCALLY = `
local function pass_locally(lock, floor, queue, waiters, id, may_jump, clock, now)
  local entry = redis.call("HGET", waiters, id)
  if not entry then return false end
  local secret, holder, ttl = live_entry(entry, clock)
  if not secret then return false end
  local jumped = redis.call("LINDEX", queue, 0) == id and 0 or 1
  if jumped == 1 and not may_jump then return false end
  redis.call("LREM", queue, 1, id)
  redis.call("HDEL", waiters, id)
  return grant_waiter(lock, floor, id, secret, holder, ttl, clock, now), tonumber(ttl), jumped, redis.call("LLEN", queue)
end
`;
