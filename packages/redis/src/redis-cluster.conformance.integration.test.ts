import { describeLockProvider } from "@distlock/conformance";
import { startRedisCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "./options/redis-lock-provider-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

const cluster = await startRedisCluster({ masters: 3 });
afterAll(() => cluster.close());

describeLockProvider({
  name: "redis (3-master cluster)",
  create: () => new RedisLockProvider({ url: cluster.url }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: cluster.url,
  config: { construct: (options) => new RedisLockProvider({ url: cluster.url, ...options }), defaults: DEFAULT_REDIS_LOCK_OPTIONS },
  faults: {
    pause: () => {
      for (const node of cluster.nodes) node.pause();
    },
    resume: async () => {
      for (const node of cluster.nodes) node.resume();
      await cluster.waitUntilHealthy();
    },
  },
});
