import type { NodeOutcome } from "@distlock/core";
import { parseStoredToken } from "../fencing/stored-token.js";
import type { RedlockNode } from "../nodes/redlock-node.js";
import { type NodeReply, toOutcome } from "../quorum/node-set.js";

/**
 * A node that granted (or re-entered) the lock; `token` is what its hash stores, null without fencing; `queued`: the
 * waiters left in its queue.
 */
export type GrantVote = {
  readonly node: RedlockNode;
  readonly vote: "for";
  readonly token: bigint | null;
  readonly holdCount: number;
  readonly queued: number;
};

/**
 * One node's answer to the acquire script: `outdated` when the lock was free there but the proposed token was not above
 * the node's counter; `pending` when a majority had granted before it answered.
 */
export type AcquireVote =
  | GrantVote
  | { readonly node: RedlockNode; readonly vote: "against"; readonly leftMs: number }
  | { readonly node: RedlockNode; readonly vote: "outdated"; readonly counter: bigint }
  | { readonly node: RedlockNode; readonly vote: "error"; readonly error: unknown }
  | { readonly node: RedlockNode; readonly vote: "pending" };

export function replyVote(reply: NodeReply<AcquireVote>): AcquireVote {
  return reply.ok ? reply.value : { node: reply.node, vote: "error", error: reply.error };
}

export function toAcquireVote(node: RedlockNode, value: unknown): AcquireVote {
  const answer = value as unknown[];
  if (answer[0] === 1) return { node, vote: "for", token: parseStoredToken(answer[1]), holdCount: Number(answer[2]), queued: Number(answer[4] ?? 0) };
  if (answer[0] === -1) return { node, vote: "outdated", counter: BigInt(String(answer[1])) };
  return { node, vote: "against", leftMs: Number(answer[1]) };
}

/** True when a majority granted fresh with no re-entry among the answers in, or a majority re-entered: the rest cannot change the outcome. */
export function grantedAlike(answers: ReadonlyArray<NodeReply<AcquireVote> | undefined>, quorum: number): boolean {
  let fresh = 0;
  let reentered = 0;
  for (const answer of answers) {
    if (answer === undefined || !answer.ok || answer.value.vote !== "for") continue;
    if (answer.value.holdCount > 1) reentered += 1;
    else fresh += 1;
  }
  return reentered >= quorum || (fresh >= quorum && reentered === 0);
}

/** A refused attempt's vote as reported; `pending` only follows a majority grant, so it is reported as no answer. */
export function acquireOutcome(vote: AcquireVote): NodeOutcome {
  if (vote.vote === "pending") return toOutcome(vote.node, "error", new Error("no answer yet"));
  if (vote.vote === "outdated") return toOutcome(vote.node, "against");
  return toOutcome(vote.node, vote.vote, vote.vote === "error" ? vote.error : undefined);
}
