import type { NodeOutcome } from "@distlock/core";
import { type NodeReply, toOutcome } from "../quorum/node-set.js";

/** True when the node ran the script and its reply starts with 1: it still held the lock for this owner (release, renew). */
export function heldHere(reply: NodeReply<unknown>): reply is Extract<NodeReply<unknown>, { ok: true }> {
  return reply.ok && (reply.value as number[])[0] === 1;
}

/** A reply as `QuorumNotReachedError` reports it. */
export function replyOutcome(reply: NodeReply<unknown>, isFor: (value: unknown) => boolean): NodeOutcome {
  if (!reply.ok) return toOutcome(reply.node, "error", reply.error);
  return toOutcome(reply.node, isFor(reply.value) ? "for" : "against");
}
