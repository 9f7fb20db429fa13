import { describeLockProvider } from "@distlock/conformance";
import { startEtcd, startEtcdCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { EtcdLockProvider } from "./etcd-lock-provider.js";

/** Equal to the suite's ttlMs, so its short holds share the session lease and its longer ones get leases of their own. */
const SESSION_TTL_MS = 2000;

const single = await startEtcd();
const cluster = await startEtcdCluster(3);
afterAll(() => Promise.all([single.close(), cluster.close()]));

describeLockProvider({
  name: "etcd (single member)",
  create: () => new EtcdLockProvider({ hosts: single.endpoints, sessionTtlMs: SESSION_TTL_MS }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: `${single.url}?sessionTtlMs=${SESSION_TTL_MS}`,
  faults: { pause: () => single.pause(), resume: () => single.resume() },
  ttlMs: 2000,
  marginMs: 1500,
});

describeLockProvider({
  name: "etcd (3-member cluster)",
  create: () => new EtcdLockProvider({ hosts: cluster.endpoints, sessionTtlMs: SESSION_TTL_MS }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: `${cluster.url}?sessionTtlMs=${SESSION_TTL_MS}`,
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
