import { EtcdLockProvider } from "@distlock/etcd";
import { CompareResult, CompareTarget, Etcd3, EtcdLockFailedError } from "etcd3";
import { type LockSubject, providerSubject } from "../harness/index.js";

/** Poll interval of subjects that cannot wait on their own. */
const RETRY_MS = 10;

/** The hosts of a comma-separated endpoint list. */
const hostsOf = (endpoints: string) => endpoints.split(",");

function distlock(id: string, name: string, sessionTtlMs: number | undefined, settings: string): LockSubject {
  return {
    id,
    name,
    role: "distlock",
    settings,
    open: async (endpoints) => providerSubject(new EtcdLockProvider({ hosts: hostsOf(endpoints), ...(sessionTtlMs === undefined ? {} : { sessionTtlMs }) })),
  };
}

/** The bench's TTL is 10 s: equal to the session TTL, every hold shares the provider's session lease. */
export const DISTLOCK = distlock("distlock", "distlock", 10_000, "session lease (sessionTtlMs = ttlMs = 10 s), native FIFO wait, watchdog on");

/** TTL different from the session TTL: a lease granted and revoked per hold. */
export const DISTLOCK_DEDICATED = distlock(
  "distlock-dedicated",
  "distlock, lease per hold",
  undefined,
  "ttlMs 10 s ≠ sessionTtlMs 30 s: lease grant + revoke per hold",
);

/** etcd3's built-in `Lock`: lease grant (+ keepalive stream) and put-if-absent txn to take, lease revoke to release; it cannot wait. */
export const ETCD3_LOCK: LockSubject = {
  id: "etcd3-lock",
  name: "etcd3 Lock",
  role: "peer",
  settings: `etcd3 1.1.2 client.lock(key).ttl(10); on contention it fails, retried every ${RETRY_MS} ms`,
  async open(endpoints) {
    const client = new Etcd3({ hosts: hostsOf(endpoints) });
    return {
      async acquire(key, ttlMs) {
        for (;;) {
          const lock = client.lock(key).ttl(Math.ceil(ttlMs / 1000));
          try {
            await lock.acquire();
            return async () => {
              await lock.release();
            };
          } catch (error) {
            if (!(error instanceof EtcdLockFailedError)) throw error;
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          }
        }
      },
      close: async () => client.close(),
    };
  },
};

/** The floor: one put-if-absent txn to take, one delete to release; no lease, no owner check, no fencing, no renewal. */
export const RAW_FLOOR: LockSubject = {
  id: "raw",
  name: "raw txn floor",
  role: "floor",
  settings: "txn(create_revision == 0 → put) + delete, no lease",
  async open(endpoints) {
    const client = new Etcd3({ hosts: hostsOf(endpoints) });
    return {
      async acquire(key) {
        const bytes = Buffer.from(key);
        const taken = await client.kv.txn({
          compare: [{ key: bytes, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key: bytes, value: Buffer.from("x") } }],
        });
        if (!taken.succeeded) throw new Error(`raw floor: ${key} is held`);
        return async () => {
          await client.kv.deleteRange({ key: bytes });
        };
      },
      close: async () => client.close(),
    };
  },
};
