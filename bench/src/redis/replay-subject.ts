import { randomUUID } from "node:crypto";
import { holderLabel, parseLockUrl } from "@distlock/core/internal";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "@distlock/redis";
import { createRespConnection, ownerPrefix, QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT, RedisKeyLayout, type ScriptTarget } from "@distlock/redis/internal";
import { Redis } from "ioredis";
import { loadScripts } from "./load-scripts.js";
import type { RedisLockSubject } from "./lock-subjects.js";

const REPLAYED =
  "EVALSHA queued-acquire 1 {distlock:<key>} <fresh owner secret's prefix> <ttl ms> <holder label>, then EVALSHA queued-release 1 {distlock:<key>} <owner secret's prefix> (scripts loaded before the first turn)";

/** A connection the replay sends its EVALSHAs on, and how to close it. */
interface ReplayConnection {
  readonly target: ScriptTarget;
  close(): void;
}

/**
 * distlock's own server commands for one uncontended acquire+release (see `RedisLockDriver`'s `#attempt` and `release`),
 * sent without core or the driver. The scripts come from @distlock/redis, so the replay follows them when they change.
 */
function replaySubject(id: string, name: string, connection: string, connect: (url: string) => ReplayConnection): RedisLockSubject {
  return {
    id,
    name,
    role: "replay",
    clientCommands: ["evalsha", "eval"],
    settings: `distlock's commands on ${connection}: ${REPLAYED}`,
    async open(url) {
      const loader = new Redis(url).on("error", () => undefined);
      await loadScripts(loader, [QUEUED_ACQUIRE_SCRIPT, QUEUED_RELEASE_SCRIPT]);
      loader.disconnect();
      const { target, close } = connect(url);
      const layout = new RedisKeyLayout(DEFAULT_REDIS_LOCK_OPTIONS.prefix);
      const holder = holderLabel();
      return {
        async acquire(key, ttlMs) {
          const tag = [layout.tag(key)];
          const owner = ownerPrefix(randomUUID());
          const token = await target.evalsha(QUEUED_ACQUIRE_SCRIPT.sha, 1, tag, [owner, ttlMs, holder]);
          // A fresh grant answers the fencing token as a string; anything else (a refusal's ttl, a re-entry) is not one.
          if (typeof token !== "string") throw new Error(`replay: ${key} was not granted fresh (${JSON.stringify(token)})`);
          return async () => {
            const left = await target.evalsha(QUEUED_RELEASE_SCRIPT.sha, 1, tag, [owner]);
            if (left !== 0) throw new Error(`replay: releasing ${key} left ${JSON.stringify(left)}, not 0`);
          };
        },
        close: async () => close(),
      };
    },
  };
}

/** Through a bare ioredis client: distlock's row minus this one is what distlock costs over the client a user would have. */
export const DISTLOCK_REPLAY = replaySubject("replay", "distlock replay (bare ioredis)", "one ioredis client", (url) => {
  const client = new Redis(url).on("error", () => undefined);
  return { target: client as unknown as ScriptTarget, close: () => client.disconnect() };
});

/** Through the lean connection distlock itself uses: distlock's row minus this one is what core and the driver add. */
export const DISTLOCK_LEAN_REPLAY = replaySubject("lean-replay", "distlock replay (its RESP connection)", "distlock's own RESP connection", (url) => {
  const connection = createRespConnection(parseLockUrl(url), DEFAULT_REDIS_LOCK_OPTIONS);
  if (connection === undefined) throw new Error(`${url} is not one server`);
  return { target: connection, close: () => connection.disconnect() };
});
