import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type PubAck } from "@nats-io/jetstream";
import type { KV, KvEntry } from "@nats-io/kv";
import { headers } from "@nats-io/transport-node";
import { ATTEMPT_TIMEOUT_MS, retryRequest } from "../connection/retry-request.js";
import { changedFrom, type KeyVersion, newWriteId, stampedValue, versionOf } from "./key-version.js";

/** Where conditional writes go: the bucket's stream, through the JetStream client. */
export interface WriteTarget {
  readonly js: JetStreamClient;
  /** The bucket's name; its keys are the subjects `$KV.<bucket>.<key>`. */
  readonly bucket: string;
  /** The bucket, for reads whose tries are bounded by `ATTEMPT_TIMEOUT_MS`. */
  readonly attemptKv: KV;
  /** Bound on every read and write, all its tries together. */
  readonly commandTimeoutMs: number;
}

/** True for JetStream's refusal of a write whose expected last revision of the key is not the key's latest. */
function isRevisionConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * How many message ids a change from one write may use: the next is used when the duplicate window knows the last one
 * but the stream has no message with it (see `publishIfAt`).
 */
const MAX_CHANGE_IDS = 4;

/**
 * The message id of a change from `from`: it names the write changed from, so it is the same for every writer that
 * read that write, and never the same for two writes. `generation` > 0 names a later id for the same change.
 */
function changeIdOf(bucketKey: string, from: KeyVersion, generation: number): string {
  const base = from.writeId === "" ? `${bucketKey}:${from.revision}` : `${bucketKey}:${from.writeId}`;
  return generation === 0 ? base : `${base}:${generation}`;
}

/**
 * Publishes `record`, stamped with a fresh write id, as a write of `bucketKey` that JetStream stores only if `from` is
 * still the key's latest write; resolves with the new version, or undefined when another write came first.
 *
 * Two guards, because one is not enough on a cluster: `Nats-Expected-Last-Subject-Sequence`, which nats-server 2.9
 * checks against the writes it has applied but not against those still being replicated (two writes on the same
 * revision sent at once to an R3 bucket both succeed), and the message id, which names the change from that write:
 * JetStream's duplicate window drops a second message with an id it stored, so at most one change from each write is
 * ever stored.
 *
 * The id names the write changed from by its write id, not by its revision: after its leader is killed, nats-server
 * 2.9.10's replicas can number the same messages differently, so a revision comes back as the number of another write.
 * And a leader's duplicate window can keep the id of a message that its stream no longer has (a write of the killed
 * leader's term that the new term dropped): a duplicate answer whose message is not a change from `from` (every value
 * names the write it changed) is no write that came first, and the change is sent again under the next id
 * (`MAX_CHANGE_IDS`); without that, every writer of the key would be refused until the window (2 min) forgot the id.
 *
 * A try that got no answer is sent again (same id); a resent write answered `duplicate` was stored if the message it
 * duplicates is this write.
 */
async function publishIfAt(target: WriteTarget, bucketKey: string, record: object, from: KeyVersion, operation?: "DEL"): Promise<KeyVersion | undefined> {
  const writeId = newWriteId();
  const value = stampedValue(record, writeId, from);
  for (let generation = 0; generation < MAX_CHANGE_IDS; generation++) {
    const sent = await publishTries(target, bucketKey, value, from, changeIdOf(bucketKey, from, generation), operation);
    if (sent === undefined) return undefined;
    const { ack, resent } = sent;
    if (!ack.duplicate) return { revision: ack.seq, writeId };
    const duplicated = await retryRequest(target.commandTimeoutMs, () => target.attemptKv.get(bucketKey, { revision: ack.seq }));
    if (resent && versionOf(duplicated).writeId === writeId) return { revision: ack.seq, writeId };
    if (isChangeFrom(duplicated, from, ack.seq)) return undefined;
  }
  return undefined;
}

/** Whether `duplicated`, stored as `revision`, is a change from `from`: a write that came first. */
function isChangeFrom(duplicated: KvEntry | null, from: KeyVersion, revision: number): boolean {
  if (duplicated === null) return false;
  // A value written before write ids does not say what it changed: any later write of the key came first.
  return from.writeId === "" ? revision > from.revision : changedFrom(duplicated) === from.writeId;
}

/** Sends the write under `msgID` until it is answered; undefined when the key's latest revision is not `from`'s. */
async function publishTries(
  target: WriteTarget,
  bucketKey: string,
  value: string,
  from: KeyVersion,
  msgID: string,
  operation?: "DEL",
): Promise<{ ack: PubAck; resent: boolean } | undefined> {
  const extra = headers();
  if (operation !== undefined) extra.set("KV-Operation", operation);
  let resent = false;
  return retryRequest(target.commandTimeoutMs, async (again) => {
    resent = again;
    try {
      const ack = await target.js.publish(`$KV.${target.bucket}.${bucketKey}`, value, {
        msgID,
        expect: { lastSubjectSequence: from.revision },
        headers: extra,
        timeout: Math.min(ATTEMPT_TIMEOUT_MS, target.commandTimeoutMs),
      });
      return { ack, resent };
    } catch (error) {
      if (isRevisionConflict(error)) return undefined;
      throw error;
    }
  });
}

/** Writes `record` under `bucketKey` if `from` is still its latest write; the new version, or undefined when another write came first. */
export function writeIfAt(target: WriteTarget, bucketKey: string, record: object, from: KeyVersion): Promise<KeyVersion | undefined> {
  return publishIfAt(target, bucketKey, record, from);
}

/**
 * Deletes `bucketKey` if `from` is still its latest write, with a delete marker (which keeps the revision count going)
 * whose value is `record`: its version, or undefined when another write came first.
 */
export function deleteIfAt(target: WriteTarget, bucketKey: string, record: object, from: KeyVersion): Promise<KeyVersion | undefined> {
  return publishIfAt(target, bucketKey, record, from, "DEL");
}
