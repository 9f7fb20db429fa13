import type { ConformanceFaults, ConformanceOptions } from "@distlock/conformance";
import { DEFAULT_ZOOKEEPER_LOCK_OPTIONS, type ZooKeeperLockProviderOptions } from "../src/options/zookeeper-lock-provider-options.js";
import type { ZooKeeperLockRecipe } from "../src/recipe/lock-layout.js";
import { ZooKeeperLockProvider } from "../src/zookeeper-lock-provider.js";

/**
 * The session timeout test providers ask for by default; it is also the backend's minimum lease, so the suite's expiry
 * tests use it as their TTL. Short, so that a SIGKILLed holder's session expires within the suite's TTL + margin.
 */
export const TEST_SESSION_TIMEOUT_MS = 1000;

/** The ZooKeeper servers a conformance run talks to. */
export interface ZooKeeperUnderTest {
  /** `zookeeper://h1:p1,…` */
  readonly url: string;
}

/**
 * The conformance options of ZooKeeper on `servers` (one server or an ensemble), in a chroot of their own, with locks in
 * the layout of `recipe`. A leader latch's nodes are never written after their create, so an explicit owner cannot
 * re-enter from another process.
 */
export function zookeeperConformance(
  name: string,
  servers: ZooKeeperUnderTest,
  faults: ConformanceFaults,
  recipe: ZooKeeperLockRecipe = "mutex",
  sessionTimeoutMs = TEST_SESSION_TIMEOUT_MS,
): ConformanceOptions {
  const url = `${servers.url}/conformance-${process.pid}?sessionTimeoutMs=${sessionTimeoutMs}&recipe=${recipe}`;
  const provider = (options: ZooKeeperLockProviderOptions = {}) => new ZooKeeperLockProvider({ url, ...options });
  return {
    name,
    create: () => provider(),
    capabilities: { fencing: true, fifo: true, listing: true, semaphore: true },
    workerUrl: url,
    reentryAcrossProcesses: recipe === "mutex",
    backendModule: "@distlock/zookeeper",
    config: { construct: (options) => provider(options), defaults: DEFAULT_ZOOKEEPER_LOCK_OPTIONS },
    faults,
    ttlMs: sessionTimeoutMs,
    marginMs: 1500,
  };
}
