import { randomUUID } from "node:crypto";
import { RedisLockProvider } from "@distlock/redis";
import { Redis, type RedisOptions } from "ioredis";
import { Mutex } from "redis-semaphore";
import { type LockSubject, providerSubject } from "../harness/index.js";
import { redisSemaphore, sesamecareRedlock } from "./peer-subjects.js";

/** A Redis-protocol lock subject: its requests are counted by command name in INFO commandstats. */
export interface RedisLockSubject extends LockSubject {
  /** Commands its clients send themselves (script-internal calls excluded). */
  readonly clientCommands: readonly string[];
}

const RELEASE_IF_OWNER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

export const DISTLOCK: RedisLockSubject = {
  id: "distlock",
  name: "distlock",
  role: "distlock",
  clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
  settings: "defaults (pub/sub wake-ups, watchdog on)",
  open: async (url) => providerSubject(new RedisLockProvider({ url })),
};

/** How the floors take a key: one SET NX PX. */
const setIfAbsent = (client: Redis, key: string, token: string, ttlMs: number) => client.set(key, token, "PX", ttlMs, "NX");

/** The floor: one SET NX PX to take, one EVALSHA compare-and-delete to release; no retries, no fencing, no renewal. */
export const RAW_FLOOR = floorSubject({
  id: "raw",
  name: "raw ioredis floor",
  settings: "SET NX PX + EVALSHA compare-and-delete",
  clientCommands: ["set"],
  take: setIfAbsent,
});

const TAKE_AND_FENCE = `if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return redis.call("INCR", KEYS[2]) end return false`;

/**
 * The floor of any fenced lock: one script takes the key (SET NX PX) and draws a token (INCR), one compare-and-delete
 * releases; no line, no re-entry, no clock in the token. What fencing alone adds to the raw floor's server time.
 */
export const FENCED_FLOOR = floorSubject({
  id: "fenced-floor",
  name: "fenced floor (SET NX PX + INCR in one script)",
  settings: "EVALSHA (SET NX PX; INCR) + EVALSHA compare-and-delete",
  clientCommands: [],
  take: (client, key, token, ttlMs) => (client as unknown as FencedFloorClient).takeAndFence(key, `${key}:fence`, token, ttlMs),
});

interface FencedFloorClient {
  takeAndFence(key: string, fence: string, token: string, ttlMs: number): Promise<number | null>;
}

/** The floor with ioredis's `enableAutoPipelining`: the commands of one event-loop turn go out in one write. */
export const PIPELINED_FLOOR = floorSubject({
  id: "raw-pipelined",
  name: "raw ioredis floor, auto-pipelined",
  settings: "SET NX PX + EVALSHA compare-and-delete, enableAutoPipelining",
  clientCommands: ["set"],
  take: setIfAbsent,
  clientOptions: { enableAutoPipelining: true },
});

/** A floor subject: `take` sets the key on one ioredis client (truthy when taken); release is compare-and-delete. */
function floorSubject(floor: {
  id: string;
  name: string;
  settings: string;
  clientCommands: readonly string[];
  take: (client: Redis, key: string, token: string, ttlMs: number) => Promise<unknown>;
  clientOptions?: RedisOptions;
}): RedisLockSubject {
  return {
    id: floor.id,
    name: floor.name,
    role: "floor",
    clientCommands: [...floor.clientCommands, "evalsha", "eval"],
    settings: floor.settings,
    async open(url) {
      const client = new Redis(url, floor.clientOptions ?? {}).on("error", () => undefined);
      client.defineCommand("releaseIfOwner", { numberOfKeys: 1, lua: RELEASE_IF_OWNER });
      client.defineCommand("takeAndFence", { numberOfKeys: 2, lua: TAKE_AND_FENCE });
      const release = client as unknown as { releaseIfOwner(key: string, token: string): Promise<number> };
      return {
        async acquire(key, ttlMs) {
          // A hash tag keeps the key and its fence in one slot, as a lock's companion keys are.
          const tagged = `{${key}}`;
          const token = randomUUID();
          if (!(await floor.take(client, tagged, token, ttlMs))) throw new Error(`${floor.name}: ${key} is held`);
          return async () => {
            await release.releaseIfOwner(tagged, token);
          };
        },
        close: async () => client.disconnect(),
      };
    },
  };
}

/** One client on the subject's redis-server. */
export const connectOne = (url: string) => [new Redis(url).on("error", () => undefined)];

export const NODE_REDLOCK = sesamecareRedlock("redlock", "@sesamecare-oss/redlock (1 node)", connectOne);

export const REDIS_SEMAPHORE = redisSemaphore(
  "redis-semaphore",
  "redis-semaphore Mutex",
  connectOne,
  ([client], key, options) => new Mutex(client as Redis, key, options),
);
