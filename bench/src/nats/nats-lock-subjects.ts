import { NatsLockProvider } from "@distlock/nats";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { type LockSubject, providerSubject } from "../harness/index.js";

/** The bucket every subject uses; keys of the floor and of distlock never meet (distlock encodes its keys). */
const BUCKET = "bench";

/** distlock's NATS backend on the bucket; waiters woken by a KV watch of the key. */
export const DISTLOCK: LockSubject = {
  id: "distlock",
  name: "distlock",
  role: "distlock",
  settings: "R1 bucket, conditional writes (expected revision + message id), waiters woken by a KV watch, watchdog on",
  open: async (url) => providerSubject(new NatsLockProvider({ url: `${url}/${BUCKET}` })),
};

/**
 * The floor: the KV client's own `create` (put if the key has no value, over a delete marker after a read) and
 * `delete`, on the same client library; no owner, no lease, no fencing, no waiting.
 */
export const RAW_FLOOR: LockSubject = {
  id: "raw",
  name: "raw KV floor",
  role: "floor",
  settings: "@nats-io/kv create + delete of the key, no lease",
  async open(url) {
    const connection = await connect({ servers: url.slice("nats://".length).split(",") });
    const kv = await new Kvm(jetstream(connection)).create(BUCKET, { history: 1, allow_direct: false });
    return {
      async acquire(key) {
        const floorKey = `floor.${Buffer.from(key).toString("hex")}`;
        await kv.create(floorKey, "x");
        return async () => {
          await kv.delete(floorKey);
        };
      },
      close: () => connection.close(),
    };
  },
};
