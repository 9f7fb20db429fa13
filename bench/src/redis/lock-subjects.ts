import { randomUUID } from "node:crypto";
import { RedisLockProvider } from "@distlock/redis";
import { Redis } from "ioredis";
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

/** The floor: one SET NX PX to take, one EVALSHA compare-and-delete to release; no retries, no fencing, no renewal. */
export const RAW_FLOOR: RedisLockSubject = {
  id: "raw",
  name: "raw ioredis floor",
  role: "floor",
  clientCommands: ["set", "evalsha", "eval"],
  settings: "SET NX PX + EVALSHA compare-and-delete",
  async open(url) {
    const client = new Redis(url).on("error", () => undefined);
    client.defineCommand("releaseIfOwner", { numberOfKeys: 1, lua: RELEASE_IF_OWNER });
    const release = client as unknown as { releaseIfOwner(key: string, token: string): Promise<number> };
    return {
      async acquire(key, ttlMs) {
        const token = randomUUID();
        if ((await client.set(key, token, "PX", ttlMs, "NX")) !== "OK") throw new Error(`raw floor: ${key} is held`);
        return async () => {
          await release.releaseIfOwner(key, token);
        };
      },
      close: async () => client.disconnect(),
    };
  },
};

/** One client on the subject's redis-server. */
export const connectOne = (url: string) => [new Redis(url).on("error", () => undefined)];

export const NODE_REDLOCK = sesamecareRedlock("redlock", "@sesamecare-oss/redlock (1 node)", connectOne);

export const REDIS_SEMAPHORE = redisSemaphore(
  "redis-semaphore",
  "redis-semaphore Mutex",
  connectOne,
  ([client], key, options) => new Mutex(client as Redis, key, options),
);
