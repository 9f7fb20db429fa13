import { describeLockProvider } from "@distlock/conformance";
import { startZooKeeper } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { zookeeperConformance } from "../test/zookeeper-conformance.js";

// The 3-server ensemble runs the same suite in zookeeper-ensemble.conformance.integration.test.ts, a file of its own so
// that the two can run side by side.
const server = await startZooKeeper();
afterAll(() => server.close());

describeLockProvider(zookeeperConformance("zookeeper (single server)", server, { pause: () => server.pause(), resume: () => server.resume() }));
