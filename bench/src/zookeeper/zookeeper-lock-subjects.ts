import { ZooKeeperLockProvider } from "@distlock/zookeeper";
import { CreateMode, createClient } from "node-zookeeper-client";
import { type LockSubject, providerSubject } from "../harness/index.js";

/** The bench's TTL is 10 s; the session timeout (the backend's minimum lease) is set to it. */
const SESSION_TIMEOUT_MS = 10_000;

/** distlock's ZooKeeper backend: Curator's lock recipe, leases on the holder's timer, a session per provider. */
export const DISTLOCK: LockSubject = {
  id: "distlock",
  name: "distlock",
  role: "distlock",
  settings: `Curator's InterProcessMutex layout, sessionTimeoutMs = ttlMs = ${SESSION_TIMEOUT_MS / 1000} s, native FIFO wait, watchdog on`,
  open: async (connectString) =>
    providerSubject(new ZooKeeperLockProvider({ url: `zookeeper://${connectString}/bench?sessionTimeoutMs=${SESSION_TIMEOUT_MS}` })),
};

/**
 * The floor, on the same client library: create an ephemeral sequential node under the key's path, delete it. No line,
 * no owner check, no lease, no fencing: it excludes nobody, so it is only measured uncontended.
 */
export const RAW_FLOOR: LockSubject = {
  id: "raw",
  name: "raw create + delete floor",
  role: "floor",
  settings: "node-zookeeper-client create(EPHEMERAL_SEQUENTIAL) + remove",
  async open(connectString) {
    const client = createClient(connectString, { sessionTimeout: SESSION_TIMEOUT_MS });
    await new Promise<void>((resolve) => {
      client.once("connected", () => resolve());
      client.connect();
    });
    const parents = new Set<string>();
    const call = <T>(start: (callback: (error: unknown, value: T) => void) => void) =>
      new Promise<T>((resolve, reject) => start((error, value) => (error === null ? resolve(value) : reject(error as Error))));
    return {
      async acquire(key) {
        const parent = `/bench-floor/${encodeURIComponent(key)}`;
        if (!parents.has(parent)) {
          await call<string>((callback) => client.mkdirp(parent, callback));
          parents.add(parent);
        }
        const path = await call<string>((callback) => client.create(`${parent}/n-`, Buffer.alloc(0), CreateMode.EPHEMERAL_SEQUENTIAL, callback));
        return () => call<void>((callback) => client.remove(path, -1, (error) => callback(error, undefined)));
      },
      close: async () => client.close(),
    };
  },
};
