import { describeLockProvider } from "@distlock/conformance";
import { startZooKeeperEnsemble } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { zookeeperConformance } from "../test/zookeeper-conformance.js";

const ensemble = await startZooKeeperEnsemble(3);
afterAll(() => ensemble.close());

/**
 * Three JVMs on two shared cores: under a full CI run the ensemble has gone a whole second without answering, which
 * ends a 1 s session (rightly). Two seconds keeps the suite's expiry tests short and the sessions alive.
 */
const ENSEMBLE_SESSION_TIMEOUT_MS = 2_000;

describeLockProvider(
  zookeeperConformance(
    "zookeeper (3-server ensemble)",
    ensemble,
    {
      pause: () => {
        for (const member of ensemble.members) member.pause();
      },
      resume: () => {
        for (const member of ensemble.members) member.resume();
      },
    },
    "mutex",
    ENSEMBLE_SESSION_TIMEOUT_MS,
  ),
);
