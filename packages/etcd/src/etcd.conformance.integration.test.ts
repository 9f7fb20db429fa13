import { describeLockProvider } from "@distlock/conformance";
import { startEtcd, startEtcdCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { EtcdLockProvider } from "./etcd-lock-provider.js";
import { DEFAULT_ETCD_LOCK_OPTIONS, type EtcdLockProviderOptions } from "./etcd-lock-provider-options.js";

/** Equal to the suite's ttlMs, so its short holds share the session lease and its longer ones get leases of their own. */
const SESSION_TTL_MS = 2000;

/** The provider every test of a suite uses, on `hosts`, with `options` on top (the config area's bad ones). */
function provider(hosts: readonly string[], options: EtcdLockProviderOptions = {}): EtcdLockProvider {
  return new EtcdLockProvider({ hosts, sessionTtlMs: SESSION_TTL_MS, ...options });
}

const single = await startEtcd();
const cluster = await startEtcdCluster(3);
afterAll(() => Promise.all([single.close(), cluster.close()]));

describeLockProvider({
  name: "etcd (single member)",
  create: () => provider(single.endpoints),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: `${single.url}?sessionTtlMs=${SESSION_TTL_MS}`,
  config: { construct: (options) => provider(single.endpoints, options), defaults: DEFAULT_ETCD_LOCK_OPTIONS },
  faults: { pause: () => single.pause(), resume: () => single.resume() },
  ttlMs: 2000,
  marginMs: 1500,
});

describeLockProvider({
  name: "etcd (3-member cluster)",
  create: () => provider(cluster.endpoints),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: `${cluster.url}?sessionTtlMs=${SESSION_TTL_MS}`,
  config: { construct: (options) => provider(cluster.endpoints, options), defaults: DEFAULT_ETCD_LOCK_OPTIONS },
  faults: {
    pause: () => {
      for (const member of cluster.members) member.pause();
    },
    resume: () => {
      for (const member of cluster.members) member.resume();
    },
  },
  ttlMs: 2000,
  marginMs: 1500,
});
