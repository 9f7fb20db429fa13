import { randomUUID } from "node:crypto";
import { RedlockLockProvider } from "@distlock/redlock";
import { RedlockMutex } from "redis-semaphore";
import { providerSubject } from "../harness/index.js";
import type { RedisLockSubject } from "../redis/lock-subjects.js";
import { redisSemaphore, sesamecareRedlock } from "../redis/peer-subjects.js";
import { redlockNodeClients } from "./redlock-node-urls.js";

function distlock(id: string, name: string, options: { fencing: boolean; awaitEveryVote?: boolean }): RedisLockSubject {
  const settings = options.awaitEveryVote === false ? ", awaitEveryVote false (a majority of fresh grants decides)" : "";
  return {
    id,
    name,
    role: "distlock",
    clientCommands: ["evalsha", "eval", "subscribe", "unsubscribe"],
    settings: `defaults, fencing ${options.fencing}${settings} (pub/sub wake-ups on every node, watchdog on)`,
    open: async (url) => providerSubject(new RedlockLockProvider({ url, ...options })),
  };
}

export const DISTLOCK_REDLOCK = distlock("distlock-redlock", "distlock redlock", { fencing: true });
export const DISTLOCK_REDLOCK_UNFENCED = distlock("distlock-redlock-unfenced", "distlock redlock (fencing: false)", { fencing: false });
export const DISTLOCK_REDLOCK_AT_MAJORITY = distlock("distlock-redlock-majority", "distlock redlock (awaitEveryVote: false)", {
  fencing: true,
  awaitEveryVote: false,
});

/** The floor: SET NX PX on every node in parallel, compare-and-delete on every node; no retries, no validity check. */
export const PARALLEL_FLOOR: RedisLockSubject = {
  id: "floor",
  name: "raw parallel SET NX floor",
  role: "floor",
  clientCommands: ["set", "del"],
  settings: "SET NX PX on all nodes at once + DEL on all nodes at once (no owner check, no retries)",
  async open(url) {
    const clients = redlockNodeClients(url);
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

export const SESAMECARE_REDLOCK = sesamecareRedlock("sesamecare", "@sesamecare-oss/redlock", redlockNodeClients);

export const SEMAPHORE_REDLOCK_MUTEX = redisSemaphore(
  "redis-semaphore",
  "redis-semaphore RedlockMutex",
  redlockNodeClients,
  (clients, key, options) => new RedlockMutex(clients, key, options),
);
