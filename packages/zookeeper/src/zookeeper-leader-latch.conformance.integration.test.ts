import { describeLockProvider } from "@distlock/conformance";
import { startZooKeeper } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { zookeeperConformance } from "../test/zookeeper-conformance.js";

// The whole suite again on locks in the layout of Curator's LeaderLatch (`recipe: "leader-latch"`), the layout that
// elect() takes beside Java LeaderLatches: its nodes are never written after their create.
const server = await startZooKeeper();
afterAll(() => server.close());

describeLockProvider(
  zookeeperConformance("zookeeper (leader-latch layout)", server, { pause: () => server.pause(), resume: () => server.resume() }, "leader-latch"),
);
