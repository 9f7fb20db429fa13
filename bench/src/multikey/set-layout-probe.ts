/**
 * The server's time for one set of N keys under three Redis layouts, and sesamecare's: `node bench/dist/multikey/set-layout-probe.js [N] [rounds] [per turn]`.
 *
 * - today: distlock's own set scripts (`ACQUIRE_ALL_SCRIPT`, `RELEASE_ALL_SCRIPT`) on its RESP connection: per key a
 *   lock key written with its own `SET … PX` (native expiry), a queue name in one `EXISTS`, and a fencing counter in one
 *   `MGET` and one `MSET`.
 * - one record: a sketch of one never-expiring record per name that keeps the hold, its lease deadline (judged against
 *   the server's clock) and the last token, so a set is one `MGET` and one `MSET` to take and the same to give back.
 *   It has no waiting line, holder label or re-entry: it prices the layout, it does not implement it.
 * - slot floor: today's scripts with the per-key fencing counters replaced by one counter for the whole slot (the last
 *   of KEYS), drawn as the single-key acquire draws its own (`drawTokenInline`: one `SET … GET`, a second `SET` only when
 *   the counter is at or past the clock): a token that rises per slot rises per key. Only the common
 *   case (every key free, no line) is written; it prices dropping the counters' `MGET` and `MSET`, it does not implement it.
 * - sesamecare's `acquire([…])` and `release()` on one node.
 *
 * Subjects take turns (order alternating); per turn: ops/s, client CPU (`process.cpuUsage()`) and the server's script
 * time (INFO commandstats `usec` of EVAL and EVALSHA) per acquire+release. Medians of the turns.
 */
import { randomUUID } from "node:crypto";
import { parseLockUrl } from "@distlock/core/internal";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import {
  ACQUIRE_ALL_SCRIPT,
  CLOCK_TEXT,
  createRespConnection,
  drawTokenInline,
  ownerPrefix,
  RELEASE_ALL_SCRIPT,
  RedisKeyLayout,
  RedisScript,
} from "@distlock/redis/internal";
import { startRedis } from "@distlock/test-servers";
import { Redlock } from "@sesamecare-oss/redlock";
import { Redis } from "ioredis";
import { median } from "../harness/index.js";
import { loadScripts } from "../redis/load-scripts.js";
import { ServerCounters } from "../redis/server-counters.js";

const TTL_MS = 10_000;
const WARM_UP = 300;

/** "H" .. lease deadline ms (13 digits) .. token (16 digits, µs) .. owner prefix; free: "F" .. 13 zeros .. last token. */
const RECORD_ACQUIRE = new RedisScript(
  "probe:record-acquire",
  `${CLOCK_TEXT}
local now_ms = now[1] * 1000 + math.floor(now[2] / 1000)
local now_text, deadline = string.format("%.0f", now_ms), string.format("%.0f", now_ms + tonumber(ARGV[2]))
local records = redis.call("MGET", unpack(KEYS))
local mine, sub, byte = ARGV[1], string.sub, string.byte
local shared = "H" .. deadline .. clock_text .. mine
local writes = {}
for i = 1, #KEYS do
  local record, value = records[i], shared
  if record then
    if byte(record, 1) == 72 and sub(record, 2, 14) > now_text then return -1 end
    local last = sub(record, 15, 30)
    if last >= clock_text then value = "H" .. deadline .. string.format("%.0f", tonumber(last) + 1) .. mine end
  end
  writes[2 * i - 1], writes[2 * i] = KEYS[i], value
end
redis.call("MSET", unpack(writes))
return clock_text`,
  "variable",
);

const RECORD_RELEASE = new RedisScript(
  "probe:record-release",
  `local records = redis.call("MGET", unpack(KEYS))
local mine, sub = ARGV[1], string.sub
local writes, freed = {}, {}
for i = 1, #KEYS do
  local record = records[i]
  if not record or sub(record, 31) ~= mine then return -1 end
  local token = sub(record, 15, 30)
  freed[token] = freed[token] or "F0000000000000" .. token
  writes[2 * i - 1], writes[2 * i] = KEYS[i], freed[token]
end
redis.call("MSET", unpack(writes))
return 0`,
  "variable",
);

/** Today's common case with one fencing counter for the slot (the last of KEYS) instead of one per key. */
const SLOT_FLOOR_ACQUIRE = new RedisScript(
  "probe:slot-floor-acquire",
  `local mine, ttl, holder = ARGV[1], ARGV[2], ARGV[3]
local count = #KEYS - 1
local names = {}
for i = 1, count do names[2 * i - 1], names[2 * i] = KEYS[i] .. ":lock", KEYS[i] .. ":queue" end
if redis.call("EXISTS", unpack(names)) ~= 0 then return -1 end
${drawTokenInline("KEYS[#KEYS]")}
local value = mine .. "1 " .. token .. " - " .. holder
for i = 1, count do redis.call("SET", names[2 * i - 1], value, "PX", ttl) end
return token`,
  "variable",
);

type Turn = (key: string) => Promise<void>;

interface Measured {
  readonly ops: number[];
  readonly cpu: number[];
  readonly server: number[];
}

const SCRIPT_COMMANDS = ["evalsha", "eval"];

const count = Number(process.argv[2] ?? 32);
const rounds = Number(process.argv[3] ?? 12);
const perTurn = Number(process.argv[4] ?? 1000);
const server = await startRedis();
const admin = new Redis(server.url);
const counters = new ServerCounters(server.url);
const sesamecareClient = new Redis(server.url);
const connection = createRespConnection(parseLockUrl(server.url), DEFAULT_REDIS_LOCK_OPTIONS);
try {
  if (connection === undefined) throw new Error("not one server");
  await loadScripts(admin, [RECORD_ACQUIRE, RECORD_RELEASE, SLOT_FLOOR_ACQUIRE, ACQUIRE_ALL_SCRIPT, RELEASE_ALL_SCRIPT]);
  const layout = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);
  const keys = (key: string) => Array.from({ length: count }, (_, i) => `${key}:${i}`);
  const twoScripts =
    (
      acquireSha: string,
      releaseSha: string,
      names: (key: string) => string[],
      args: (owner: string) => (string | number)[],
      extraAcquireKeys: string[] = [],
    ): Turn =>
    async (key) => {
      const sent = names(key);
      const owner = ownerPrefix(randomUUID());
      const acquireKeys = [...sent, ...extraAcquireKeys];
      const granted = await connection.evalsha(acquireSha, acquireKeys.length, acquireKeys, args(owner));
      if (typeof granted !== "string") throw new Error(`${key}: not granted (${String(granted)})`);
      const left = await connection.evalsha(releaseSha, sent.length, sent, [owner]);
      if (left !== 0) throw new Error(`${key}: release left ${JSON.stringify(left)}`);
    };
  const redlock = new Redlock([sesamecareClient], { retryCount: 0 });
  const subjects: Record<string, Turn> = {
    today: twoScripts(
      ACQUIRE_ALL_SCRIPT.sha,
      RELEASE_ALL_SCRIPT.sha,
      (key) => keys(key).map((name) => layout.tag(name)),
      (owner) => [owner, TTL_MS, "probe"],
    ),
    "slot floor": twoScripts(
      SLOT_FLOOR_ACQUIRE.sha,
      RELEASE_ALL_SCRIPT.sha,
      (key) => keys(key).map((name) => layout.tag(name)),
      (owner) => [owner, TTL_MS, "probe"],
      ["{distlock}:floor"],
    ),
    "one record": twoScripts(
      RECORD_ACQUIRE.sha,
      RECORD_RELEASE.sha,
      (key) => keys(key).map((name) => `{distlock}:record:${name}`),
      (owner) => [owner, TTL_MS],
    ),
    sesamecare: async (key) => {
      const lock = await redlock.acquire(keys(key), TTL_MS);
      await lock.release();
    },
  };
  const names = Object.keys(subjects);
  const measured = new Map<string, Measured>(names.map((name) => [name, { ops: [], cpu: [], server: [] }]));
  for (const name of names) for (let i = 0; i < WARM_UP; i++) await subjects[name]?.(`warm:${name}`);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const turn = subjects[name] as Turn;
      const into = measured.get(name) as Measured;
      const micros = (await counters.commandStats(SCRIPT_COMMANDS)).usec;
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < perTurn; i++) await turn(`set:${name}`);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      into.ops.push(perTurn / seconds);
      into.cpu.push((used.user + used.system) / perTurn);
      into.server.push(((await counters.commandStats(SCRIPT_COMMANDS)).usec - micros) / perTurn);
    }
  }
  const peer = measured.get("sesamecare") as Measured;
  const lines = [
    `N = ${count}: ${rounds} rounds × ${perTurn} acquire+release per subject, order alternating; medians of the turns`,
    "",
    "| subject | ops/s | ÷ sesamecare per round | client CPU µs/op | server µs/op |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [name, { ops, cpu, server: micros }] of measured) {
    const ratio = median(ops.map((value, round) => value / (peer.ops[round] ?? Number.NaN)));
    lines.push(`| ${name} | ${Math.round(median(ops))} | ${ratio.toFixed(2)}× | ${median(cpu).toFixed(0)} | ${median(micros).toFixed(0)} |`);
  }
  console.log(lines.join("\n"));
} finally {
  connection?.disconnect();
  admin.disconnect();
  await counters.close();
  sesamecareClient.disconnect();
  await server.close();
}
