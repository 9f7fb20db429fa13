import { QuorumNotReachedError } from "@distlock/core";
import type { NodeReply } from "../connection/redlock-node.js";
import type { NodeSet } from "../quorum/node-set.js";
import { replyOutcome } from "./node-replies.js";

/** The hold count one node's release reply shows for one key: what is left (0 when freed), -1 when the owner did not hold it there. */
export type CountLeft = (value: unknown) => number;

/** What releasing one key came to, from every node's reply: held on a majority (the count a majority reached), or not held. */
export function releaseOutcome(nodes: NodeSet, replies: readonly NodeReply<unknown>[], countLeft: CountLeft): { held: boolean; holdCount: number } {
  const counts = replies.flatMap((reply) => (reply.ok && countLeft(reply.value) >= 0 ? [countLeft(reply.value)] : []));
  const errors = replies.filter((reply) => !reply.ok).length;
  if (counts.length >= nodes.quorum) return { held: true, holdCount: nodes.majorityValue(counts) ?? 0 };
  if (counts.length + errors < nodes.quorum) return { held: false, holdCount: 0 };
  throw new QuorumNotReachedError(
    "release",
    nodes.quorum,
    replies.map((reply) => replyOutcome(reply, (value) => countLeft(value) >= 0)),
  );
}

/** True once a majority released the key, or so many nodes did not hold it that no majority can have. */
export function releaseDecided(nodes: NodeSet, answers: ReadonlyArray<NodeReply<unknown> | undefined>, countLeft: CountLeft): boolean {
  let released = 0;
  let notHeld = 0;
  for (const answer of answers) {
    if (answer === undefined || !answer.ok) continue;
    if (countLeft(answer.value) >= 0) released += 1;
    else notHeld += 1;
  }
  return released >= nodes.quorum || nodes.unreachable(notHeld);
}
