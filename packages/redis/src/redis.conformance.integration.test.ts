import { describeLockProvider } from "@distlock/conformance";
import { startRedis } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { DEFAULT_REDIS_LOCK_OPTIONS } from "./options/redis-lock-provider-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

const server = await startRedis();
afterAll(() => server.close());

describeLockProvider({
  name: "redis (single server)",
  create: () => new RedisLockProvider({ url: server.url }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: server.url,
  config: { construct: (options) => new RedisLockProvider({ url: server.url, ...options }), defaults: DEFAULT_REDIS_LOCK_OPTIONS },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
});
