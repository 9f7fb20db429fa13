import type { ConformanceFaults, ConformanceOptions } from "@distlock/conformance";
import { EtcdLockProvider } from "../src/etcd-lock-provider.js";
import { DEFAULT_ETCD_LOCK_OPTIONS, type EtcdLockProviderOptions } from "../src/options/etcd-lock-provider-options.js";

/** Equal to the suite's ttlMs, so its short holds share the session lease and its longer ones get leases of their own. */
const SESSION_TTL_MS = 2000;

/** The etcd members a conformance run talks to. */
export interface EtcdUnderTest {
  readonly endpoints: readonly string[];
  /** Their `etcd://` URL, for worker processes and the config area. */
  readonly url: string;
}

/** The conformance options of etcd on `servers` (one member or a cluster): every test's provider uses them, with the config area's options on top. */
export function etcdConformance(name: string, servers: EtcdUnderTest, faults: ConformanceFaults): ConformanceOptions {
  const provider = (options: EtcdLockProviderOptions = {}) => new EtcdLockProvider({ hosts: servers.endpoints, sessionTtlMs: SESSION_TTL_MS, ...options });
  return {
    name,
    create: () => provider(),
    capabilities: { fencing: true, fifo: true, semaphore: true },
    workerUrl: `${servers.url}?sessionTtlMs=${SESSION_TTL_MS}`,
    config: { construct: (options) => provider(options), defaults: DEFAULT_ETCD_LOCK_OPTIONS },
    faults,
    ttlMs: 2000,
    marginMs: 1500,
  };
}
