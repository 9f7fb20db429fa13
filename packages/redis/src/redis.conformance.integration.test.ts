import { describeLockProvider } from "@distlock/conformance";
import { startRedis } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { RedisLockProvider } from "./redis-lock-provider.js";

const server = await startRedis();
afterAll(() => server.close());

describeLockProvider({
  name: "redis (single server)",
  create: () => new RedisLockProvider({ url: server.url }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: server.url,
  faults: { pause: () => server.pause(), resume: () => server.resume() },
});
