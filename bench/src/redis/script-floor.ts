/**
 * What a Redis acquire+release costs the server, and the floor of it:
 * `node bench/dist/redis/script-floor.js [rounds] [pairs per round] [--serial]`.
 *
 * Each subject sends its commands for one uncontended acquire+release of a key of its own, pipelined (so the client's
 * speed does not matter), with a fresh owner each pair as in the bench; subjects take turns, round by round. Reported
 * is the median over the rounds of the server time per pair (INFO commandstats `usec` of the subject's commands; a
 * script's time includes the calls it makes inside). With `--serial`, each subject instead awaits every command, as
 * the uncontended loop does, and the report is its pairs per second and, round by round, its ratio to distlock's
 * scripts and to redis-semaphore's commands on the same bare ioredis client: what a layout's server time is worth in
 * that loop, with no library around it.
 *
 * - distlock: its two scripts by EVALSHA, as the uncontended loop sends them;
 * - distlock by FCALL: the same two script bodies registered as Redis functions (Redis 7), called by FCALL;
 * - the calls it cannot do without: a script that only reads the record (GET), reads the clock (TIME) and writes
 *   the record (SET), twice: what is left of distlock's pair once every string operation is taken away;
 * - a fenced lock with native expiry and no clock: a script that grants by SET NX PX and then counts a fencing token
 *   with INCR, and one that compares, deletes and looks at the line (EXISTS): the old layout's least, without the
 *   record (deadline by the server's clock, token kept in it, holder label, line mark) that lets a set of keys be one
 *   MGET and one MSET;
 * - redis-semaphore's commands: SET NX PX, then its compare-and-delete script.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { ownerPrefix, QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT, RedisKeyLayout } from "@distlock/redis/internal";
import { startRedis } from "@distlock/test-servers";
import type { Redis } from "ioredis";
import { Redis as RedisClient } from "ioredis";

const TTL_MS = 30_000;
const HOLDER = "bench-host:12345";
const PIPELINE_PAIRS = 25;

const CALLS_ONLY = `local lock = KEYS[1] .. ":lock"
local value = redis.call("GET", lock)
local now = redis.call("TIME")
redis.call("SET", lock, ARGV[1])
return now[1]`;
const EXPIRING_ACQUIRE = `if redis.call("SET", KEYS[1] .. ":lock", ARGV[1], "NX", "PX", ARGV[2]) then
  return redis.call("INCR", KEYS[1] .. ":fence")
end
return false`;
const EXPIRING_RELEASE = `local lock = KEYS[1] .. ":lock"
if redis.call("GET", lock) == ARGV[1] then
  redis.call("DEL", lock)
  return redis.call("EXISTS", KEYS[1] .. ":queue")
end
return -1`;
const COMPARE_AND_DELETE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** The two queue-aware scripts as one function library, each body the callback of a function of that name. */
const LIBRARY = `#!lua name=distlock_bench
redis.register_function{function_name = "acquire", callback = function(KEYS, ARGV)
${QUEUED_ACQUIRE_SCRIPT.lua}
end}
redis.register_function{function_name = "release", callback = function(KEYS, ARGV)
${QUEUED_RELEASE_SCRIPT.lua}
end}`;

/** One command as `call` takes it: name, then arguments. */
type Command = readonly [string, ...(string | number)[]];

interface PairSubject {
  readonly name: string;
  /** The commands whose commandstats time is the subject's. */
  readonly commands: readonly string[];
  /** One acquire+release of `key` by a fresh owner: its commands in order. */
  pair(key: string): readonly Command[];
}

interface LoadedScripts {
  readonly callsOnly: string;
  readonly expiringAcquire: string;
  readonly expiringRelease: string;
  readonly compareAndDelete: string;
}

function subjects(sha: LoadedScripts): PairSubject[] {
  const layout = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);
  return [
    {
      name: "distlock (EVALSHA)",
      commands: ["evalsha"],
      pair(key) {
        const owner = ownerPrefix(randomUUID());
        return [
          ["EVALSHA", QUEUED_ACQUIRE_SCRIPT.sha, 1, layout.tag(key), owner, TTL_MS, HOLDER],
          ["EVALSHA", QUEUED_RELEASE_SCRIPT.sha, 1, layout.tag(key), owner],
        ];
      },
    },
    {
      name: "distlock (FCALL)",
      commands: ["fcall"],
      pair(key) {
        const owner = ownerPrefix(randomUUID());
        return [
          ["FCALL", "acquire", 1, layout.tag(key), owner, TTL_MS, HOLDER],
          ["FCALL", "release", 1, layout.tag(key), owner],
        ];
      },
    },
    {
      name: "GET + TIME + SET in a script, twice",
      commands: ["evalsha"],
      pair(key) {
        const owner = ownerPrefix(randomUUID());
        return [
          ["EVALSHA", sha.callsOnly, 1, layout.tag(key), owner],
          ["EVALSHA", sha.callsOnly, 1, layout.tag(key), owner],
        ];
      },
    },
    {
      name: "native expiry, no clock (SET NX PX + INCR; compare, DEL, EXISTS of the line)",
      commands: ["evalsha"],
      pair(key) {
        const owner = randomUUID();
        return [
          ["EVALSHA", sha.expiringAcquire, 1, layout.tag(key), owner, TTL_MS],
          ["EVALSHA", sha.expiringRelease, 1, layout.tag(key), owner],
        ];
      },
    },
    {
      name: "redis-semaphore's commands",
      commands: ["set", "evalsha"],
      pair(key) {
        const owner = randomUUID();
        return [
          ["SET", key, owner, "PX", TTL_MS, "NX"],
          ["EVALSHA", sha.compareAndDelete, 1, key, owner],
        ];
      },
    },
  ];
}

/** Server µs per pair of `subject`: `pairs` pairs sent `PIPELINE_PAIRS` at a time, timed by INFO commandstats. */
async function serverMicrosPerPair(client: Redis, subject: PairSubject, key: string, pairs: number): Promise<number> {
  await client.config("RESETSTAT");
  for (let sent = 0; sent < pairs; sent += PIPELINE_PAIRS) {
    const pipeline = client.pipeline();
    for (let i = 0; i < PIPELINE_PAIRS; i++) for (const command of subject.pair(key)) pipeline.call(...command);
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }
  const stats = await client.info("commandstats");
  let usec = 0;
  for (const command of subject.commands) usec += Number(new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`).exec(stats)?.[1] ?? 0);
  return usec / pairs;
}

/** Pairs per second of `subject` awaiting each command, as the uncontended loop does. */
async function serialPairsPerSecond(client: Redis, subject: PairSubject, key: string, pairs: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < pairs; i++) for (const command of subject.pair(key)) await client.call(...command);
  return pairs / ((performance.now() - started) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function printServerTime(measured: readonly PairSubject[], perPair: readonly number[][]): void {
  const distlock = median(perPair[0] as number[]);
  console.log(`${rounds} rounds × ${pairsPerRound} acquire+release pairs per subject, pipelined, order alternating; medians of the rounds\n`);
  console.log("| subject | server µs per acquire+release | ÷ distlock (EVALSHA) |\n| --- | --- | --- |");
  measured.forEach((subject, i) => {
    const micros = median(perPair[i] as number[]);
    console.log(`| ${subject.name} | ${micros.toFixed(2)} | ${(micros / distlock).toFixed(2)} |`);
  });
}

function printSerialRates(measured: readonly PairSubject[], rates: readonly number[][]): void {
  const peer = measured.length - 1;
  const pairedMedian = (i: number, of: number): number => median((rates[i] as number[]).map((rate, round) => rate / (rates[of]?.[round] ?? Number.NaN)));
  console.log(`${rounds} rounds × ${pairsPerRound} acquire+release pairs per subject, each command awaited, order alternating; medians of the rounds\n`);
  console.log("| subject | pairs/s | ÷ distlock (EVALSHA), paired | ÷ redis-semaphore's commands, paired |\n| --- | --- | --- | --- |");
  measured.forEach((subject, i) => {
    console.log(`| ${subject.name} | ${Math.round(median(rates[i] as number[]))} | ${pairedMedian(i, 0).toFixed(3)} | ${pairedMedian(i, peer).toFixed(3)} |`);
  });
}

const serial = process.argv.includes("--serial");
const [rounds, pairsPerRound] = (() => {
  const numbers = process.argv.slice(2).filter((arg) => arg !== "--serial");
  return [Number(numbers[0] ?? 9), Number(numbers[1] ?? (serial ? 2_000 : 10_000))];
})();
const server = await startRedis();
const client = new RedisClient(server.url);
try {
  await client.call("FUNCTION", "LOAD", "REPLACE", LIBRARY);
  for (const script of [QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT]) await client.script("LOAD", script.lua);
  const load = async (lua: string): Promise<string> => String(await client.script("LOAD", lua));
  const measured = subjects({
    callsOnly: await load(CALLS_ONLY),
    expiringAcquire: await load(EXPIRING_ACQUIRE),
    expiringRelease: await load(EXPIRING_RELEASE),
    compareAndDelete: await load(COMPARE_AND_DELETE),
  });
  const perRound = measured.map(() => [] as number[]);
  const measure = serial ? serialPairsPerSecond : serverMicrosPerPair;
  if (serial) for (const [index, subject] of measured.entries()) await serialPairsPerSecond(client, subject, `bench:floor:${index}`, 300);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? measured : [...measured].reverse();
    for (const subject of order) {
      const index = measured.indexOf(subject);
      (perRound[index] as number[]).push(await measure(client, subject, `bench:floor:${index}`, pairsPerRound));
    }
  }
  if (serial) printSerialRates(measured, perRound);
  else printServerTime(measured, perRound);
} finally {
  client.disconnect();
  await server.close();
}
