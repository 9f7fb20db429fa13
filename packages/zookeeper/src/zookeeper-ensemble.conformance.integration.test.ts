import { describeLockProvider } from "@distlock/conformance";
import { startZooKeeperEnsemble } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { zookeeperConformance } from "../test/zookeeper-conformance.js";

const ensemble = await startZooKeeperEnsemble(3);
afterAll(() => ensemble.close());

describeLockProvider(
  zookeeperConformance("zookeeper (3-server ensemble)", ensemble, {
    pause: () => {
      for (const member of ensemble.members) member.pause();
    },
    resume: () => {
      for (const member of ensemble.members) member.resume();
    },
  }),
);
