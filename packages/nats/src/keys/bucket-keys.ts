import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";

/**
 * The keys of `bucket` matching `filter` whose latest entry is not a delete marker, read from an ordered consumer of the
 * latest entry per key (headers only) until it reports none pending; the stream's subject counts say first whether
 * there is any. The KV client's own `keys()` also ends at the consumer's first idle heartbeat, which a loaded server
 * can send before the last entries: it then misses held keys.
 */
export async function bucketKeys(js: JetStreamClient, bucket: string, filter: string, timeoutMs: number): Promise<string[]> {
  const stream = `KV_${bucket}`;
  const subjectPrefix = `$KV.${bucket}.`;
  const subjects = `${subjectPrefix}${filter}`;
  const keys: string[] = [];
  const info = await (await js.jetstreamManager(false)).streams.info(stream, { subjects_filter: subjects });
  if (Object.keys(info.state.subjects ?? {}).length === 0) return keys;
  const consumer = await js.consumers.get(stream, { filter_subjects: subjects, deliver_policy: DeliverPolicy.LastPerSubject, headers_only: true });
  const messages = await consumer.consume({ expires: Math.max(1_000, timeoutMs) });
  const deadline = setTimeout(() => messages.stop(new Error(`listing the keys of bucket ${bucket} took longer than ${timeoutMs} ms`)), timeoutMs);
  try {
    for await (const message of messages) {
      const operation = message.headers?.get("KV-Operation");
      if (operation !== "DEL" && operation !== "PURGE") keys.push(message.subject.slice(subjectPrefix.length));
      if (message.info.pending === 0) break;
    }
    const stopped = await messages.closed();
    if (stopped instanceof Error) throw stopped;
  } finally {
    clearTimeout(deadline);
    messages.stop();
  }
  return keys;
}
