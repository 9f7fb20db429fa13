import { describeLockProvider } from "@distlock/conformance";
import { startRedisCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { RedisLockProvider } from "./redis-lock-provider.js";

const cluster = await startRedisCluster({ masters: 3 });
afterAll(() => cluster.close());

describeLockProvider({
  name: "redis (3-master cluster)",
  create: () => new RedisLockProvider({ url: cluster.url }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: cluster.url,
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
