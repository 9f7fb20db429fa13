import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";

/** True for JetStream's refusal of a write whose expected last revision of the key is not the key's latest. */
function isRevisionConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Writes `value` under `bucketKey` if `revision` is still its latest (0: the key was never written), as one JetStream
 * publish with `Nats-Expected-Last-Subject-Sequence`; resolves with the new revision, or undefined when another write
 * came first.
 */
export async function writeIfAt(kv: KV, bucketKey: string, value: string, revision: number): Promise<number | undefined> {
  try {
    return await kv.put(bucketKey, value, { previousSeq: revision });
  } catch (error) {
    if (isRevisionConflict(error)) return undefined;
    throw error;
  }
}

/** Deletes `bucketKey` (a delete marker, which keeps the revision count going) if `revision` is still its latest; false when another write came first. */
export async function deleteIfAt(kv: KV, bucketKey: string, revision: number): Promise<boolean> {
  try {
    await kv.delete(bucketKey, { previousSeq: revision });
    return true;
  } catch (error) {
    if (isRevisionConflict(error)) return false;
    throw error;
  }
}
