import { RedisLockProvider } from "@distlock/redis";
import { Redlock } from "@sesamecare-oss/redlock";
import { Redis } from "ioredis";
import { IoredisAdapter, LockManager } from "redlock-universal";
import type { RedisLockSubject } from "../redis/lock-subjects.js";
import { PEER_RETRY_MS } from "../redis/peer-subjects.js";

/** The `count` keys a subject holds together for the scenario's `key`: `<key>:0` … `<key>:<count-1>`. */
export function keySet(key: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${key}:${i}`);
}

/** distlock's `acquireAll` of `count` keys, released together. */
export function distlockKeys(count: number): RedisLockSubject {
  return {
    id: `distlock-${count}`,
    name: "distlock acquireAll",
    role: "distlock",
    clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
    settings: "defaults (pub/sub wake-ups, watchdog on)",
    async open(url) {
      const provider = new RedisLockProvider({ url });
      return {
        async acquire(key, ttlMs) {
          const locks = await provider.acquireAll(keySet(key, count), { ttlMs });
          return () => locks.release();
        },
        close: () => provider.close(),
      };
    },
  };
}

/** @sesamecare-oss/redlock's `acquire([…])` of `count` keys on one node (one script to take, one to release). */
export function sesamecareKeys(count: number): RedisLockSubject {
  return {
    id: `sesamecare-${count}`,
    name: "@sesamecare-oss/redlock acquire([…])",
    role: "peer",
    clientCommands: ["evalsha", "eval"],
    settings: `retryCount -1, retryDelay ${PEER_RETRY_MS} ms, retryJitter ${PEER_RETRY_MS} ms`,
    async open(url) {
      const client = new Redis(url).on("error", () => undefined);
      const redlock = new Redlock([client], { retryCount: -1, retryDelay: PEER_RETRY_MS, retryJitter: PEER_RETRY_MS });
      redlock.on("error", () => undefined);
      return {
        async acquire(key, ttlMs) {
          const lock = await redlock.acquire(keySet(key, count), ttlMs);
          return async () => {
            await lock.release();
          };
        },
        close: async () => {
          client.disconnect();
        },
      };
    },
  };
}

/** redlock-universal's `LockManager.acquireBatch` (one script to take) and `releaseBatch` (one release per key). */
export function redlockUniversalKeys(count: number): RedisLockSubject {
  return {
    id: `redlock-universal-${count}`,
    name: "redlock-universal acquireBatch",
    role: "peer",
    clientCommands: ["evalsha", "eval", "script"],
    settings: `retryAttempts 1,000,000, retryDelay ${PEER_RETRY_MS} ms`,
    async open(url) {
      const client = new Redis(url).on("error", () => undefined);
      const manager = new LockManager({ nodes: [new IoredisAdapter(client)], defaultRetryAttempts: 1_000_000, defaultRetryDelay: PEER_RETRY_MS });
      return {
        async acquire(key, ttlMs) {
          const handles = await manager.acquireBatch(keySet(key, count), { ttl: ttlMs });
          return async () => {
            await manager.releaseBatch(handles);
          };
        },
        close: async () => {
          client.disconnect();
        },
      };
    },
  };
}

/** The key counts the scenario measures. */
export const KEY_COUNTS = [2, 8, 32] as const;
