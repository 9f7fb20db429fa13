/**
 * What a Redis acquire+release costs the server, and the floor of it:
 * `node bench/dist/redis/script-floor.js [rounds] [pairs per round]`.
 *
 * Each subject sends its commands for one uncontended acquire+release of a key of its own, pipelined (so the client's
 * speed does not matter), with a fresh owner each pair as in the bench; subjects take turns, round by round. Reported
 * is the median over the rounds of the server time per pair (INFO commandstats `usec` of the subject's commands; a
 * script's time includes the calls it makes inside).
 *
 * - distlock: its two scripts by EVALSHA, as the uncontended loop sends them;
 * - distlock by FCALL: the same two script bodies registered as Redis functions (Redis 7), called by FCALL;
 * - the calls it cannot do without: a script that only reads the record (GET), reads the clock (TIME) and writes
 *   the record (SET), twice: what is left of distlock's pair once every string operation is taken away;
 * - redis-semaphore's commands: SET NX PX, then its compare-and-delete script.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { ownerPrefix, QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT, RedisKeyLayout } from "@distlock/redis/internal";
import { startRedis } from "@distlock/test-servers";
import type { ChainableCommander, Redis } from "ioredis";
import { Redis as RedisClient } from "ioredis";

const TTL_MS = 30_000;
const HOLDER = "bench-host:12345";
const PIPELINE_PAIRS = 25;

const CALLS_ONLY = `local lock = KEYS[1] .. ":lock"
local value = redis.call("GET", lock)
local now = redis.call("TIME")
redis.call("SET", lock, ARGV[1])
return now[1]`;
const COMPARE_AND_DELETE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** The two queue-aware scripts as one function library, each body the callback of a function of that name. */
const LIBRARY = `#!lua name=distlock_bench
redis.register_function{function_name = "acquire", callback = function(KEYS, ARGV)
${QUEUED_ACQUIRE_SCRIPT.lua}
end}
redis.register_function{function_name = "release", callback = function(KEYS, ARGV)
${QUEUED_RELEASE_SCRIPT.lua}
end}`;

interface PairSubject {
  readonly name: string;
  /** The commands whose commandstats time is the subject's. */
  readonly commands: readonly string[];
  /** Queues one acquire+release on the pipeline. */
  pair(pipeline: ChainableCommander, key: string): void;
}

function subjects(callsOnlySha: string, compareAndDeleteSha: string): PairSubject[] {
  const layout = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);
  return [
    {
      name: "distlock (EVALSHA)",
      commands: ["evalsha"],
      pair(pipeline, key) {
        const owner = ownerPrefix(randomUUID());
        pipeline.evalsha(QUEUED_ACQUIRE_SCRIPT.sha, 1, layout.tag(key), owner, TTL_MS, HOLDER);
        pipeline.evalsha(QUEUED_RELEASE_SCRIPT.sha, 1, layout.tag(key), owner);
      },
    },
    {
      name: "distlock (FCALL)",
      commands: ["fcall"],
      pair(pipeline, key) {
        const owner = ownerPrefix(randomUUID());
        pipeline.call("FCALL", "acquire", 1, layout.tag(key), owner, TTL_MS, HOLDER);
        pipeline.call("FCALL", "release", 1, layout.tag(key), owner);
      },
    },
    {
      name: "GET + TIME + SET in a script, twice",
      commands: ["evalsha"],
      pair(pipeline, key) {
        const owner = ownerPrefix(randomUUID());
        pipeline.evalsha(callsOnlySha, 1, layout.tag(key), owner);
        pipeline.evalsha(callsOnlySha, 1, layout.tag(key), owner);
      },
    },
    {
      name: "redis-semaphore's commands",
      commands: ["set", "evalsha"],
      pair(pipeline, key) {
        const owner = randomUUID();
        pipeline.set(key, owner, "PX", TTL_MS, "NX");
        pipeline.evalsha(compareAndDeleteSha, 1, key, owner);
      },
    },
  ];
}

/** Server µs per pair of `subject`: `pairs` pairs sent `PIPELINE_PAIRS` at a time, timed by INFO commandstats. */
async function serverMicrosPerPair(client: Redis, subject: PairSubject, key: string, pairs: number): Promise<number> {
  await client.config("RESETSTAT");
  for (let sent = 0; sent < pairs; sent += PIPELINE_PAIRS) {
    const pipeline = client.pipeline();
    for (let i = 0; i < PIPELINE_PAIRS; i++) subject.pair(pipeline, key);
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }
  const stats = await client.info("commandstats");
  let usec = 0;
  for (const command of subject.commands) usec += Number(new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`).exec(stats)?.[1] ?? 0);
  return usec / pairs;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const rounds = Number(process.argv[2] ?? 9);
const pairsPerRound = Number(process.argv[3] ?? 10_000);
const server = await startRedis();
const client = new RedisClient(server.url);
try {
  await client.call("FUNCTION", "LOAD", "REPLACE", LIBRARY);
  for (const script of [QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT]) await client.script("LOAD", script.lua);
  const measured = subjects(String(await client.script("LOAD", CALLS_ONLY)), String(await client.script("LOAD", COMPARE_AND_DELETE)));
  const perPair = measured.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? measured : [...measured].reverse();
    for (const subject of order) {
      const index = measured.indexOf(subject);
      (perPair[index] as number[]).push(await serverMicrosPerPair(client, subject, `bench:floor:${index}`, pairsPerRound));
    }
  }
  const distlock = median(perPair[0] as number[]);
  console.log(`${rounds} rounds × ${pairsPerRound} acquire+release pairs per subject, pipelined, order alternating; medians of the rounds\n`);
  console.log("| subject | server µs per acquire+release | ÷ distlock (EVALSHA) |\n| --- | --- | --- |");
  measured.forEach((subject, i) => {
    const micros = median(perPair[i] as number[]);
    console.log(`| ${subject.name} | ${micros.toFixed(2)} | ${(micros / distlock).toFixed(2)} |`);
  });
} finally {
  client.disconnect();
  await server.close();
}
