import { type JetStreamClient, type JetStreamManager, jetstreamManager, type StreamInfo } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";

/** How long one read of a new bucket may take while the client waits for the bucket to answer reads. */
const FIRST_READ_TIMEOUT_MS = 500;

/** How often a client whose creation of the bucket went unanswered looks whether another client's creation finished, and a client waits for a new bucket's leader. */
const CREATED_ELSEWHERE_POLL_MS = 100;

/** The bucket's settings when this client creates it. */
export interface BucketSpec {
  readonly bucket: string;
  readonly replicas: number;
  readonly storage: "file" | "memory";
  readonly timeoutMs: number;
}

/**
 * Opens the bucket, creating it when missing. On a cluster, nats-server 2.9 answers only one of several creations of a
 * stream that arrive together (the others time out), so while this client's creation is unanswered it also looks
 * whether the stream exists, and binds to it as soon as it does. Then it waits until the stream has a leader (a new
 * replicated stream elects one after its creation is answered, and reads sent before go unanswered) and answers a
 * read, within `timeoutMs`, and resolves with the bucket and its stream's info.
 */
export async function openBucket(connection: NatsConnection, js: JetStreamClient, spec: BucketSpec): Promise<{ kv: KV; info: StreamInfo }> {
  const kvm = new Kvm(js);
  const options = {
    history: 1,
    replicas: spec.replicas,
    storage: spec.storage,
    timeout: spec.timeoutMs,
    // Reads go to the stream leader (no direct get, which a replica that lags may answer): a release or renewal must
    // see the owner's latest write, or it would report a hold lost that is not.
    allow_direct: false,
  };
  const creating = kvm.create(spec.bucket, options);
  const jsm = await js.jetstreamManager();
  const stop = new AbortController();
  const createdElsewhere = untilStreamExists(jsm, `KV_${spec.bucket}`, stop.signal).then(() => kvm.create(spec.bucket, options));
  try {
    const kv = await Promise.any([creating, createdElsewhere]);
    const deadline = performance.now() + spec.timeoutMs;
    const info = await ledStreamInfo(jsm, `KV_${spec.bucket}`, deadline);
    await untilReadable(connection, `KV_${spec.bucket}`, deadline);
    return { kv, info };
  } catch (error) {
    throw error instanceof AggregateError ? error.errors[0] : error;
  } finally {
    stop.abort();
    creating.catch(() => undefined);
    createdElsewhere.catch(() => undefined);
  }
}

async function untilStreamExists(jsm: JetStreamManager, stream: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, CREATED_ELSEWHERE_POLL_MS));
    signal.throwIfAborted();
    const found = await jsm.streams.info(stream).then(
      () => true,
      () => false,
    );
    if (found) return;
  }
}

/** The stream's info once it has a leader (a stream on a single server has no cluster info and needs none). */
async function ledStreamInfo(jsm: JetStreamManager, stream: string, deadline: number): Promise<StreamInfo> {
  for (;;) {
    const info = await jsm.streams.info(stream);
    if (info.cluster === undefined || info.cluster.leader !== undefined) return info;
    if (performance.now() >= deadline) throw new Error(`stream ${stream} has no leader`);
    await new Promise((resolve) => setTimeout(resolve, CREATED_ELSEWHERE_POLL_MS));
  }
}

/** Resolves once the stream answers a read (of a subject nothing is written to), trying with short timeouts until `deadline`. */
async function untilReadable(connection: NatsConnection, stream: string, deadline: number): Promise<void> {
  const jsm = await jetstreamManager(connection, { timeout: FIRST_READ_TIMEOUT_MS, checkAPI: false });
  const subject = `$KV.${stream.slice("KV_".length)}.distlock-probe`;
  for (;;) {
    try {
      await jsm.streams.getMessage(stream, { last_by_subj: subject });
      return;
    } catch (error) {
      if (performance.now() >= deadline) throw error;
    }
  }
}
