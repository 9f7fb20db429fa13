import { Redlock } from "@sesamecare-oss/redlock";
import type { Redis } from "ioredis";
import type { RedisLockSubject } from "./lock-subjects.js";

/** How often the peers retry a taken key. */
export const PEER_RETRY_MS = 10;

/** @sesamecare-oss/redlock over the clients `connect` opens (one node, or every master of a Redlock group). */
export function sesamecareRedlock(id: string, name: string, connect: (url: string) => Redis[]): RedisLockSubject {
  return {
    id,
    name,
    role: "peer",
    clientCommands: ["evalsha", "eval"],
    settings: `retryCount -1, retryDelay ${PEER_RETRY_MS} ms, retryJitter ${PEER_RETRY_MS} ms`,
    async open(url) {
      const clients = connect(url);
      const redlock = new Redlock(clients, { retryCount: -1, retryDelay: PEER_RETRY_MS, retryJitter: PEER_RETRY_MS });
      redlock.on("error", () => undefined);
      return {
        async acquire(key, ttlMs) {
          const lock = await redlock.acquire([key], ttlMs);
          return async () => {
            await lock.release();
          };
        },
        close: async () => {
          for (const client of clients) client.disconnect();
        },
      };
    },
  };
}

/** The part of a redis-semaphore mutex a subject uses. */
interface SemaphoreMutex {
  acquire(): Promise<void>;
  release(): Promise<void>;
}

/** redis-semaphore options for a lock of `ttlMs`: retry every {@link PEER_RETRY_MS}, refresh at ttl/3, wait (almost) forever. */
export interface SemaphoreOptions {
  readonly lockTimeout: number;
  readonly acquireTimeout: number;
  readonly retryInterval: number;
  readonly refreshInterval: number;
}

/** What a redis-semaphore subject other than a mutex sends and admits. */
export interface SemaphoreKind {
  /** @default ["set", "evalsha", "eval"] (a mutex's) */
  readonly clientCommands?: readonly string[];
  /** Holders a key admits at once (a `Semaphore`'s limit). @default 1 */
  readonly permits?: number;
}

/**
 * A redis-semaphore mutex (`Mutex` on one node, `RedlockMutex` over every master) or semaphore (`Semaphore`, with its
 * `kind`), one per acquisition, over the clients `connect` opens.
 */
export function redisSemaphore(
  id: string,
  name: string,
  connect: (url: string) => Redis[],
  mutex: (clients: Redis[], key: string, options: SemaphoreOptions) => SemaphoreMutex,
  kind: SemaphoreKind = {},
): RedisLockSubject {
  return {
    id,
    name,
    role: "peer",
    clientCommands: kind.clientCommands ?? ["set", "evalsha", "eval"],
    permits: kind.permits,
    settings: `retryInterval ${PEER_RETRY_MS} ms, refresh at ttl/3${kind.permits === undefined ? "" : `, limit ${kind.permits}`}`,
    async open(url) {
      const clients = connect(url);
      return {
        async acquire(key, ttlMs) {
          const held = mutex(clients, key, {
            lockTimeout: ttlMs,
            acquireTimeout: 600_000,
            retryInterval: PEER_RETRY_MS,
            refreshInterval: Math.floor(ttlMs / 3),
          });
          await held.acquire();
          return () => held.release();
        },
        close: async () => {
          for (const client of clients) client.disconnect();
        },
      };
    },
  };
}
