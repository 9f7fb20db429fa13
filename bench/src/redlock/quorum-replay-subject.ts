import { randomUUID } from "node:crypto";
import { holderLabel } from "@distlock/core/internal";
import { RedisKeyLayout, type RedisScript } from "@distlock/redis/internal";
import { DEFAULT_REDLOCK_LOCK_OPTIONS } from "@distlock/redlock";
import { LeaseBudget, QUORUM_ACQUIRE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "@distlock/redlock/internal";
import { loadScripts } from "../redis/load-scripts.js";
import type { RedisLockSubject } from "../redis/lock-subjects.js";
import { redlockNodeClients } from "./redlock-node-urls.js";

/**
 * distlock redlock's own server commands for one uncontended acquire+release (see `QuorumAcquire`'s `#attempt` and
 * `QuorumRelease`'s `release`), sent to every node at once through bare ioredis clients: no core, no driver. An acquire nobody contests
 * is one quorum-acquire per node (fenced, the default: a proposed token above the last), a release one quorum-release
 * per node. distlock's row minus this one is what distlock's client code adds.
 */
export const DISTLOCK_REDLOCK_REPLAY: RedisLockSubject = {
  id: "distlock-redlock-replay",
  name: "distlock redlock replay (bare ioredis)",
  role: "replay",
  clientCommands: ["evalsha", "eval"],
  settings:
    "distlock redlock's commands on one ioredis client per node, on all nodes at once: EVALSHA quorum-acquire with the key's tag, a fresh owner secret, the holder label, the lease, a rising proposed token and no waiter, then EVALSHA quorum-release with the tag and the owner secret; each answers once every node replied (distlock's acquire waits for every vote, its release answers at a majority)",
  async open(url) {
    const clients = redlockNodeClients(url);
    await Promise.all(clients.map((client) => loadScripts(client, [QUORUM_ACQUIRE_SCRIPT, QUORUM_RELEASE_SCRIPT])));
    const layout = new RedisKeyLayout(DEFAULT_REDLOCK_LOCK_OPTIONS.prefix);
    const budget = new LeaseBudget(DEFAULT_REDLOCK_LOCK_OPTIONS);
    const holder = holderLabel();
    let proposal = 0;
    /** Runs `script` on every node; throws unless every node answered `expected` (1: granted fresh; 0: released, no level left). */
    const everyNode = async (script: RedisScript, keys: readonly string[], args: readonly (string | number)[], expected: number) => {
      const replies = await Promise.all(clients.map((client) => client.evalsha(script.sha, keys.length, ...keys, ...args)));
      if (!replies.every((reply) => reply === expected)) throw new Error(`replay: ${script.name} on ${keys[0]} answered ${JSON.stringify(replies)}`);
    };
    return {
      async acquire(key, ttlMs) {
        const keys = [layout.tag(key)];
        const ownerSecret = randomUUID();
        proposal = Math.max(proposal + 1, Math.floor((performance.timeOrigin + performance.now()) * 1000));
        await everyNode(QUORUM_ACQUIRE_SCRIPT, keys, [ownerSecret, holder, budget.leaseMs(ttlMs), String(proposal), ""], 1);
        return () => everyNode(QUORUM_RELEASE_SCRIPT, keys, [ownerSecret], 0);
      },
      close: async () => {
        for (const client of clients) client.disconnect();
      },
    };
  },
};
