import { randomUUID } from "node:crypto";
import { RedisLockProvider } from "@distlock/redis";
import { Redlock } from "@sesamecare-oss/redlock";
import { Redis } from "ioredis";
import { Mutex } from "redis-semaphore";

/** A held lock: call to release it. */
export type Release = () => Promise<void>;

/** One lock implementation connected to one server. */
export interface OpenSubject {
  /** Waits until `key` is held (retrying the way the library does). */
  acquire(key: string, ttlMs: number): Promise<Release>;
  close(): Promise<void>;
}

/** A lock implementation under test. */
export interface LockSubject {
  /** Stable id, used by worker processes to find the subject. */
  readonly id: string;
  readonly name: string;
  /** Commands its clients send themselves (script-internal calls excluded), to count requests in INFO commandstats. */
  readonly clientCommands: readonly string[];
  /** Settings worth printing under the table. */
  readonly settings: string;
  open(url: string): Promise<OpenSubject>;
}

const RETRY_MS = 10;

const RELEASE_IF_OWNER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

export const DISTLOCK: LockSubject = {
  id: "distlock",
  name: "distlock",
  clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
  settings: "defaults (pub/sub wake-ups, watchdog on)",
  async open(url) {
    const locks = new RedisLockProvider({ url });
    return {
      async acquire(key, ttlMs) {
        const lock = await locks.acquire(key, { ttlMs });
        return () => lock.release();
      },
      close: () => locks.close(),
    };
  },
};

/** The floor: one SET NX PX to take, one EVALSHA compare-and-delete to release; no retries, no fencing, no renewal. */
export const RAW_FLOOR: LockSubject = {
  id: "raw",
  name: "raw ioredis floor",
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

export const NODE_REDLOCK: LockSubject = {
  id: "redlock",
  name: "@sesamecare-oss/redlock (1 node)",
  clientCommands: ["evalsha", "eval"],
  settings: `retryCount -1, retryDelay ${RETRY_MS} ms, retryJitter ${RETRY_MS} ms`,
  async open(url) {
    const client = new Redis(url).on("error", () => undefined);
    const redlock = new Redlock([client], { retryCount: -1, retryDelay: RETRY_MS, retryJitter: RETRY_MS });
    redlock.on("error", () => undefined);
    return {
      async acquire(key, ttlMs) {
        const lock = await redlock.acquire([key], ttlMs);
        return async () => {
          await lock.release();
        };
      },
      close: async () => client.disconnect(),
    };
  },
};

export const REDIS_SEMAPHORE: LockSubject = {
  id: "redis-semaphore",
  name: "redis-semaphore Mutex",
  clientCommands: ["set", "evalsha", "eval"],
  settings: `retryInterval ${RETRY_MS} ms, refresh at ttl/3`,
  async open(url) {
    const client = new Redis(url).on("error", () => undefined);
    return {
      async acquire(key, ttlMs) {
        const mutex = new Mutex(client, key, { lockTimeout: ttlMs, acquireTimeout: 600_000, retryInterval: RETRY_MS, refreshInterval: Math.floor(ttlMs / 3) });
        await mutex.acquire();
        return () => mutex.release();
      },
      close: async () => client.disconnect(),
    };
  },
};

export const LOCK_SUBJECTS: Readonly<Record<string, LockSubject>> = Object.fromEntries(
  [DISTLOCK, RAW_FLOOR, NODE_REDLOCK, REDIS_SEMAPHORE].map((s) => [s.id, s]),
);
