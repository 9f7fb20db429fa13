import type { NodeOutcome } from "@distlock/core";
import type { NodeReply, RedlockNode } from "../connection/redlock-node.js";
import { parseStoredToken } from "../fencing/stored-token.js";
import { toOutcome } from "../quorum/node-set.js";

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

/** One node's answer to the acquire script: `outdated` when the lock was free there but the proposed token was not above the node's counter. */
export type AcquireVote =
  | GrantVote
  | { readonly node: RedlockNode; readonly vote: "against"; readonly leftMs: number }
  | { readonly node: RedlockNode; readonly vote: "outdated"; readonly counter: bigint }
  | { readonly node: RedlockNode; readonly vote: "error"; readonly error: unknown };

/** A node's reply to the acquire script as its vote; `proposal`: the token this attempt proposed, which a fresh grant of a free key (a bare 1) stored. */
export function toAcquireVote(reply: NodeReply<unknown>, proposal: bigint | null): AcquireVote {
  const { node } = reply;
  if (!reply.ok) return { node, vote: "error", error: reply.error };
  if (reply.value === 1) return { node, vote: "for", token: proposal, holdCount: 1, queued: 0 };
  const answer = reply.value as unknown[];
  if (answer[0] === 1) return { node, vote: "for", token: parseStoredToken(answer[1]), holdCount: Number(answer[2]), queued: Number(answer[4] ?? 0) };
  if (answer[0] === -1) return { node, vote: "outdated", counter: BigInt(String(answer[1])) };
  return { node, vote: "against", leftMs: Number(answer[1]) };
}

/** A refused attempt's vote as reported. */
export function acquireOutcome(vote: AcquireVote): NodeOutcome {
  if (vote.vote === "outdated") return toOutcome(vote.node, "against");
  return toOutcome(vote.node, vote.vote, vote.vote === "error" ? vote.error : undefined);
}
