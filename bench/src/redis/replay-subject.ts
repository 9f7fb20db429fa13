import { randomUUID } from "node:crypto";
import { holderLabel } from "@distlock/core/driver";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT, RedisKeyLayout } from "@distlock/redis/internal";
import { Redis } from "ioredis";
import { loadScripts } from "./load-scripts.js";
import type { RedisLockSubject } from "./lock-subjects.js";

/**
 * distlock's own server commands for one uncontended acquire+release (see `RedisLockDriver`'s `#attempt` and `release`),
 * sent through a bare ioredis client: no core, no driver. Its client CPU is what those commands cost ioredis, so
 * distlock's row minus this one is what distlock's client code adds. The scripts come from @distlock/redis, so the
 * replay follows them when they change.
 */
export const DISTLOCK_REPLAY: RedisLockSubject = {
  id: "replay",
  name: "distlock replay (bare ioredis)",
  role: "replay",
  clientCommands: ["evalsha", "eval"],
  settings:
    "distlock's commands on one ioredis client: EVALSHA queued-acquire 1 {distlock:<key>} <fresh owner secret> <ttl ms> <holder label>, then EVALSHA queued-release 1 {distlock:<key>} <owner secret> (scripts loaded before the first turn)",
  async open(url) {
    const client = new Redis(url).on("error", () => undefined);
    await loadScripts(client, [QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT]);
    const layout = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);
    const holder = holderLabel();
    return {
      async acquire(key, ttlMs) {
        const tag = layout.tag(key);
        const ownerSecret = randomUUID();
        const token = await client.evalsha(QUEUED_ACQUIRE_SCRIPT.sha, 1, tag, ownerSecret, ttlMs, holder);
        // A fresh grant answers the fencing token as a string; anything else (a refusal's ttl, a re-entry) is not one.
        if (typeof token !== "string") throw new Error(`replay: ${key} was not granted fresh (${JSON.stringify(token)})`);
        return async () => {
          const left = await client.evalsha(QUEUED_RELEASE_SCRIPT.sha, 1, tag, ownerSecret);
          if (left !== 0) throw new Error(`replay: releasing ${key} left ${JSON.stringify(left)}, not 0`);
        };
      },
      close: async () => client.disconnect(),
    };
  },
};
