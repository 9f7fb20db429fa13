import { randomUUID } from "node:crypto";
import { RedlockLockProvider } from "@distlock/redlock";
import { Redlock } from "@sesamecare-oss/redlock";
import { Redis } from "ioredis";
import { RedlockMutex } from "redis-semaphore";

/** A held lock: call to release it. */
export type Release = () => Promise<void>;

/** One lock implementation connected to the 5 masters. */
export interface OpenRedlockSubject {
  /** Waits until `key` is held (retrying the way the library does). */
  acquire(key: string, ttlMs: number): Promise<Release>;
  close(): Promise<void>;
}

/** A Redlock implementation under test, opened on the `redlock://` URL of the masters. */
export interface RedlockSubject {
  /** Stable id, used by worker processes to find the subject. */
  readonly id: string;
  readonly name: string;
  /** Commands its clients send themselves, to count requests in INFO commandstats (summed over the nodes). */
  readonly clientCommands: readonly string[];
  /** Settings worth printing under the table. */
  readonly settings: string;
  open(url: string): Promise<OpenRedlockSubject>;
}

const RETRY_MS = 10;

/** One ioredis client per host of a `redlock://h1:p1,h2:p2` URL, for the peer libraries. */
function clientsOf(url: string): Redis[] {
  return url
    .replace(/^redlock:\/\//, "")
    .split(",")
    .map((hostPort) => {
      const [host, port] = hostPort.split(":");
      return new Redis({ host, port: Number(port) }).on("error", () => undefined);
    });
}

function distlock(id: string, name: string, fencing: boolean): RedlockSubject {
  return {
    id,
    name,
    clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
    settings: `defaults, fencing ${fencing} (pub/sub wake-ups on every node, watchdog on)`,
    async open(url) {
      const locks = new RedlockLockProvider({ url, fencing });
      return {
        async acquire(key, ttlMs) {
          const lock = await locks.acquire(key, { ttlMs });
          return () => lock.release();
        },
        close: () => locks.close(),
      };
    },
  };
}

export const DISTLOCK_REDLOCK = distlock("distlock-redlock", "distlock redlock", true);
export const DISTLOCK_REDLOCK_UNFENCED = distlock("distlock-redlock-unfenced", "distlock redlock (fencing: false)", false);

/** The floor: SET NX PX on every node in parallel, compare-and-delete on every node; no retries, no validity check. */
export const PARALLEL_FLOOR: RedlockSubject = {
  id: "floor",
  name: "raw parallel SET NX floor",
  clientCommands: ["set", "del"],
  settings: "SET NX PX on all nodes at once + DEL on all nodes at once (no owner check, no retries)",
  async open(url) {
    const clients = clientsOf(url);
    return {
      async acquire(key, ttlMs) {
        const token = randomUUID();
        const replies = await Promise.all(clients.map((client) => client.set(key, token, "PX", ttlMs, "NX")));
        if (replies.some((reply) => reply !== "OK")) throw new Error(`floor: ${key} is held`);
        return async () => {
          await Promise.all(clients.map((client) => client.del(key)));
        };
      },
      close: async () => {
        for (const client of clients) client.disconnect();
      },
    };
  },
};

export const SESAMECARE_REDLOCK: RedlockSubject = {
  id: "sesamecare",
  name: "@sesamecare-oss/redlock",
  clientCommands: ["evalsha", "eval"],
  settings: `retryCount -1, retryDelay ${RETRY_MS} ms, retryJitter ${RETRY_MS} ms`,
  async open(url) {
    const clients = clientsOf(url);
    const redlock = new Redlock(clients, { retryCount: -1, retryDelay: RETRY_MS, retryJitter: RETRY_MS });
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

export const SEMAPHORE_REDLOCK_MUTEX: RedlockSubject = {
  id: "redis-semaphore",
  name: "redis-semaphore RedlockMutex",
  clientCommands: ["evalsha", "eval", "set"],
  settings: `retryInterval ${RETRY_MS} ms, refresh at ttl/3`,
  async open(url) {
    const clients = clientsOf(url);
    return {
      async acquire(key, ttlMs) {
        const mutex = new RedlockMutex(clients, key, {
          lockTimeout: ttlMs,
          acquireTimeout: 600_000,
          retryInterval: RETRY_MS,
          refreshInterval: Math.floor(ttlMs / 3),
        });
        await mutex.acquire();
        return () => mutex.release();
      },
      close: async () => {
        for (const client of clients) client.disconnect();
      },
    };
  },
};

export const REDLOCK_SUBJECTS: Readonly<Record<string, RedlockSubject>> = Object.fromEntries(
  [DISTLOCK_REDLOCK, DISTLOCK_REDLOCK_UNFENCED, PARALLEL_FLOOR, SESAMECARE_REDLOCK, SEMAPHORE_REDLOCK_MUTEX].map((s) => [s.id, s]),
);
