import { describeLockProvider } from "@distlock/conformance";
import { startRedisGroup } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { DEFAULT_REDLOCK_LOCK_OPTIONS } from "./options/redlock-lock-provider-options.js";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const group = await startRedisGroup(5);
afterAll(() => group.close());

const faults = {
  pause: () => Promise.all(group.servers.map((server) => server.pause())).then(() => undefined),
  resume: () => Promise.all(group.servers.map((server) => server.resume())).then(() => undefined),
};

describeLockProvider({
  name: "redlock (5 masters)",
  create: () => new RedlockLockProvider({ url: group.url }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: group.url,
  config: { construct: (options) => new RedlockLockProvider({ url: group.url, ...options }), defaults: DEFAULT_REDLOCK_LOCK_OPTIONS },
  crossProcess: true,
  faults,
});

const deciding = `${group.url}?awaitEveryVote=false`;

describeLockProvider({
  name: "redlock (5 masters, awaitEveryVote: false)",
  create: () => new RedlockLockProvider({ url: deciding }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: deciding,
  crossProcess: true,
  faults,
});
