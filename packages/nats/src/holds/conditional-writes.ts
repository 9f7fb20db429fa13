import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";

/** Where conditional writes go: the bucket's stream, through the JetStream client. */
export interface WriteTarget {
  readonly js: JetStreamClient;
  /** The bucket's name; its keys are the subjects `$KV.<bucket>.<key>`. */
  readonly bucket: string;
}

/** True for JetStream's refusal of a write whose expected last revision of the key is not the key's latest. */
function isRevisionConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Publishes a write of `bucketKey` that JetStream stores only if `revision` is still the key's latest (0: never
 * written); resolves with the new revision, or undefined when another write came first.
 *
 * Two guards, because one is not enough on a cluster: `Nats-Expected-Last-Subject-Sequence`, which nats-server 2.9
 * checks against the writes it has applied but not against those still being replicated (two writes on the same
 * revision sent at once to an R3 bucket both succeed), and the message id `<key>:<revision>`, which names the change
 * from that revision: JetStream's duplicate window drops a second message with an id it stored or is storing, so at
 * most one change from each revision is ever stored. A write on a revision older than the window is refused by the
 * first guard, since a newer revision was applied long ago.
 */
async function publishIfAt(target: WriteTarget, bucketKey: string, value: string, revision: number, operation?: "DEL"): Promise<number | undefined> {
  const extra = headers();
  if (operation !== undefined) extra.set("KV-Operation", operation);
  try {
    const ack = await target.js.publish(`$KV.${target.bucket}.${bucketKey}`, value, {
      msgID: `${bucketKey}:${revision}`,
      expect: { lastSubjectSequence: revision },
      headers: extra,
    });
    return ack.duplicate ? undefined : ack.seq;
  } catch (error) {
    if (isRevisionConflict(error)) return undefined;
    throw error;
  }
}

/** Writes `value` under `bucketKey` if `revision` is still its latest; the new revision, or undefined when another write came first. */
export function writeIfAt(target: WriteTarget, bucketKey: string, value: string, revision: number): Promise<number | undefined> {
  return publishIfAt(target, bucketKey, value, revision);
}

/** Deletes `bucketKey` if `revision` is still its latest, with a delete marker (which keeps the revision count going): its revision, or undefined when another write came first. */
export function deleteIfAt(target: WriteTarget, bucketKey: string, revision: number): Promise<number | undefined> {
  return publishIfAt(target, bucketKey, "", revision, "DEL");
}
