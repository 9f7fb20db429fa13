import { describeLockProvider } from "@distlock/conformance";
import { DEFAULT_NATS_LOCK_OPTIONS, NatsLockProvider } from "@distlock/nats";
import { startNatsCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";

const cluster = await startNatsCluster(3);
afterAll(() => cluster.close());

// Every hold replicated on all three servers.
const url = `${cluster.url}/conformance?replicas=3`;

describeLockProvider({
  name: "nats cluster (R3 bucket)",
  create: () => new NatsLockProvider({ url }),
  capabilities: { fencing: true, fifo: true, listing: true, semaphore: true },
  workerUrl: url,
  backendModule: "@distlock/nats",
  config: { construct: (options) => new NatsLockProvider({ url, ...options }), defaults: DEFAULT_NATS_LOCK_OPTIONS },
  faults: {
    pause: () => {
      for (const server of cluster.servers) server.pause();
    },
    resume: () => {
      for (const server of cluster.servers) server.resume();
    },
  },
});
