import { type NodeOutcome, QuorumNotReachedError } from "@distlock/core";
import type { NodeReply } from "../connection/redlock-node.js";
import { type NodeSet, toOutcome } from "../quorum/node-set.js";

/** True when the node ran the script and its reply starts with 1: it still held the lock for this owner (release, renew). */
export function heldHere(reply: NodeReply<unknown>): reply is Extract<NodeReply<unknown>, { ok: true }> {
  return reply.ok && (reply.value as number[])[0] === 1;
}

/** A reply as `QuorumNotReachedError` reports it. */
export function replyOutcome(reply: NodeReply<unknown>, isFor: (value: unknown) => boolean): NodeOutcome {
  if (!reply.ok) return toOutcome(reply.node, "error", reply.error);
  return toOutcome(reply.node, isFor(reply.value) ? "for" : "against");
}

/** Throws QUORUM_NOT_REACHED for `operation` when so many nodes failed to answer that no majority could form. */
export function assertMajorityReachable(nodes: NodeSet, operation: string, replies: readonly NodeReply<unknown>[]): void {
  if (nodes.unreachable(replies.filter((reply) => !reply.ok).length)) {
    throw new QuorumNotReachedError(
      operation,
      nodes.quorum,
      replies.map((reply) => replyOutcome(reply, () => true)),
    );
  }
}
