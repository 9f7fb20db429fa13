import { describeLockProvider } from "@distlock/conformance";
import { startTcpProxy, startZooKeeperEnsemble } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { zookeeperConformance } from "../test/zookeeper-conformance.js";

const ensemble = await startZooKeeperEnsemble(3);
/**
 * The suite reaches each member through a proxy, and its outage is a cut of all three: the client hears nothing while
 * the ensemble keeps its quorum. Stopping all three JVMs instead (as the single server's suite stops its one) once
 * left the ensemble serving nobody for the rest of a CI run, which no later test could survive.
 */
const proxies = await Promise.all(ensemble.members.map((member) => startTcpProxy(member.port)));
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await ensemble.close();
});

/**
 * Three JVMs on two shared cores: under a full CI run the ensemble has gone a whole second without answering, which
 * ends a 1 s session (rightly). Two seconds keeps the suite's expiry tests short and the sessions alive.
 */
const ENSEMBLE_SESSION_TIMEOUT_MS = 2_000;

describeLockProvider(
  zookeeperConformance(
    "zookeeper (3-server ensemble)",
    { url: `zookeeper://${proxies.map((proxy) => `127.0.0.1:${proxy.port}`).join(",")}` },
    {
      pause: () => {
        for (const proxy of proxies) proxy.blackhole();
      },
      resume: () => {
        for (const proxy of proxies) proxy.restore();
      },
    },
    "mutex",
    ENSEMBLE_SESSION_TIMEOUT_MS,
  ),
);
