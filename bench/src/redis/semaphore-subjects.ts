import { randomUUID } from "node:crypto";
import type { Semaphore as DistlockSemaphore } from "@distlock/core";
import { RedisLockProvider } from "@distlock/redis";
import { Redis } from "ioredis";
import { Semaphore } from "redis-semaphore";
import { connectOne, type RedisLockSubject } from "./lock-subjects.js";
import { redisSemaphore } from "./peer-subjects.js";

/** The permits of every semaphore the semaphore scenarios measure (issue #21: N = 4). */
export const SEMAPHORE_PERMITS = 4;

export const DISTLOCK_SEMAPHORE: RedisLockSubject = {
  id: "distlock-semaphore",
  name: "distlock",
  role: "distlock",
  permits: SEMAPHORE_PERMITS,
  clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
  settings: "defaults (FIFO line, pub/sub wake-ups, permit cohorts with localPasses 16, watchdog on); one `provider.semaphore(name)` per name, kept",
  async open(url) {
    const provider = new RedisLockProvider({ url });
    const semaphores = new Map<string, DistlockSemaphore>();
    return {
      async acquire(name, ttlMs) {
        const semaphore = semaphores.get(name) ?? provider.semaphore(name, { permits: SEMAPHORE_PERMITS });
        semaphores.set(name, semaphore);
        const permit = await semaphore.acquire({ ttlMs });
        return () => permit.release();
      },
      close: () => provider.close(),
    };
  },
};

/** Drops lapsed holders, then adds this one if fewer than the limit hold. KEYS: the sorted set; ARGV: limit, id, now ms, ttl ms. */
const TAKE_PERMIT = `redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[3])
if redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call("ZADD", KEYS[1], ARGV[3] + ARGV[4], ARGV[2])
redis.call("PEXPIRE", KEYS[1], ARGV[4])
return 1`;

/** The floor: one EVALSHA to take a permit (a sorted set of holders by expiry), one ZREM to give it back; no waiting, no fencing, no renewal. */
export const RAW_SEMAPHORE_FLOOR: RedisLockSubject = {
  id: "raw-semaphore",
  name: "raw ioredis floor",
  role: "floor",
  permits: SEMAPHORE_PERMITS,
  clientCommands: ["evalsha", "eval", "zrem"],
  settings: "EVALSHA (ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE) + ZREM",
  async open(url) {
    const client = new Redis(url).on("error", () => undefined);
    client.defineCommand("takePermit", { numberOfKeys: 1, lua: TAKE_PERMIT });
    const take = client as unknown as { takePermit(key: string, limit: number, id: string, now: number, ttlMs: number): Promise<number> };
    return {
      async acquire(key, ttlMs) {
        const id = randomUUID();
        if ((await take.takePermit(key, SEMAPHORE_PERMITS, id, Date.now(), ttlMs)) !== 1) throw new Error(`raw floor: every permit of ${key} is held`);
        return async () => {
          await client.zrem(key, id);
        };
      },
      close: async () => client.disconnect(),
    };
  },
};

export const REDIS_SEMAPHORE_SEMAPHORE = redisSemaphore(
  "redis-semaphore-semaphore",
  "redis-semaphore Semaphore",
  connectOne,
  ([client], key, options) => new Semaphore(client as Redis, key, SEMAPHORE_PERMITS, options),
  { clientCommands: ["evalsha", "eval", "zrem"], permits: SEMAPHORE_PERMITS },
);
