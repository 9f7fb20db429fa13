import { describeLockProvider } from "@distlock/conformance";
import { DEFAULT_NATS_LOCK_OPTIONS, NatsLockProvider } from "@distlock/nats";
import { startNats } from "@distlock/test-servers";
import { afterAll } from "vitest";

const server = await startNats();
afterAll(() => server.close());

const url = `${server.url}/conformance`;

describeLockProvider({
  name: "nats",
  create: () => new NatsLockProvider({ url }),
  capabilities: { fencing: true, fifo: true, listing: true, semaphore: true },
  workerUrl: url,
  backendModule: "@distlock/nats",
  config: { construct: (options) => new NatsLockProvider({ url, ...options }), defaults: DEFAULT_NATS_LOCK_OPTIONS },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
});
