import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager, jetstreamManager, type StreamInfo } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";

/** How long one look at the bucket's stream (its info, a read) may take while the client waits for it to be ready. */
const LOOK_TIMEOUT_MS = 500;

/** How often a client looks again at a bucket that is not ready yet. */
const LOOK_INTERVAL_MS = 100;

/** The bucket's settings when this client creates it. */
export interface BucketSpec {
  readonly bucket: string;
  readonly replicas: number;
  readonly storage: "file" | "memory";
  readonly timeoutMs: number;
}

/**
 * Opens the bucket, creating it when missing, and resolves once its stream has a leader and answers a read, within
 * `timeoutMs`. On a cluster, nats-server 2.9 answers only one of several creations of a stream that arrive together
 * (the others time out), answers the creation before the stream has elected its own leader, and leaves reads and info
 * requests sent before then unanswered; so this client looks at the stream with short requests, asks for its creation
 * once when it is missing, and binds to it as soon as it is led and readable, whoever created it.
 */
export async function openBucket(connection: NatsConnection, js: JetStreamClient, spec: BucketSpec): Promise<{ kv: KV; info: StreamInfo }> {
  const kvm = new Kvm(js);
  const stream = `KV_${spec.bucket}`;
  const look = await jetstreamManager(connection, { timeout: LOOK_TIMEOUT_MS, checkAPI: false });
  const deadline = performance.now() + spec.timeoutMs;
  let creation: { failure?: unknown } | undefined;
  for (;;) {
    const info: StreamInfo | Error = await look.streams.info(stream).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    if (!(info instanceof Error)) {
      if ((info.cluster === undefined || info.cluster.leader !== undefined) && (await readable(look, spec.bucket))) {
        // Reads go to the stream leader (no direct get, which a replica that lags may answer): a release or renewal
        // must see the owner's latest write, or it would report a hold lost that is not.
        return { kv: await kvm.open(spec.bucket, { allow_direct: false, timeout: spec.timeoutMs }), info };
      }
    } else if (isStreamNotFound(info) && creation === undefined) {
      const started: { failure?: unknown } = {};
      creation = started;
      kvm
        .create(spec.bucket, { history: 1, replicas: spec.replicas, storage: spec.storage, timeout: spec.timeoutMs, allow_direct: false })
        .catch((error: unknown) => {
          started.failure = error;
        });
    }
    if (creation?.failure instanceof JetStreamApiError) throw creation.failure;
    if (performance.now() >= deadline) {
      throw new Error(`the bucket ${spec.bucket} was not ready within ${spec.timeoutMs} ms (commandTimeoutMs)`, { cause: creation?.failure ?? info });
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_INTERVAL_MS));
  }
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

/** Whether the bucket's stream answers a read (of a key nothing is written to). */
async function readable(look: JetStreamManager, bucket: string): Promise<boolean> {
  return look.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.distlock-probe` }).then(
    () => true,
    () => false,
  );
}
