import type { NodeOutcome } from "@distlock/core";
import type { NodeReply, RedlockNode } from "../connection/redlock-node.js";
import { parseStoredToken } from "../fencing/stored-token.js";
import { toOutcome } from "../quorum/node-set.js";

/** What one node granted of one key: `token` is what its hold stores (null without fencing). */
export interface KeyGrantVote {
  readonly token: bigint | null;
  readonly holdCount: number;
}

/**
 * A node that granted (or re-entered) the lock; `token` is what its hash stores, null without fencing; `queued`: the
 * waiters left in its queue.
 */
export type GrantVote = KeyGrantVote & {
  readonly node: RedlockNode;
  readonly vote: "for";
  readonly queued: number;
};

/** A node's vote against an attempt: `outdated` when the lock was free there but the proposed token was not above the node's counter. */
export type RefusalVote =
  | { readonly node: RedlockNode; readonly vote: "against"; readonly leftMs: number }
  | { readonly node: RedlockNode; readonly vote: "outdated"; readonly counter: bigint }
  | { readonly node: RedlockNode; readonly vote: "error"; readonly error: unknown };

/** One node's answer to the acquire script. */
export type AcquireVote = GrantVote | RefusalVote;

/**
 * When an attempt outside any line may be decided before every node answered: a majority of bare 1s (fresh grants of
 * free keys nobody waited for) and nothing else in yet. The nodes still to answer run the attempt all the same, in order
 * on their connections, so their copies join the hold before any release or renewal of it reaches them.
 */
export function freshMajority(quorum: number): (answers: ReadonlyArray<NodeReply<unknown> | undefined>) => boolean {
  return (answers) => {
    let fresh = 0;
    for (const answer of answers) {
      if (answer === undefined) continue;
      if (!answer.ok || answer.value !== 1) return false;
      fresh++;
    }
    return fresh >= quorum;
  };
}

/** A node's reply to the acquire script as its vote; `proposal`: the token this attempt proposed, which a fresh grant of a free key (a bare 1) stored. */
export function toAcquireVote(reply: NodeReply<unknown>, proposal: bigint | null): AcquireVote {
  const { node } = reply;
  if (reply.ok && reply.value === 1) return { node, vote: "for", token: proposal, holdCount: 1, queued: 0 };
  const answer = reply.ok ? (reply.value as unknown[]) : undefined;
  if (answer?.[0] === 1) return { node, vote: "for", token: parseStoredToken(answer[1]), holdCount: Number(answer[2]), queued: Number(answer[4] ?? 0) };
  return toRefusalVote(reply);
}

/** A node that granted (or re-entered) every key of a set: what it granted of each, in key order. */
export type KeySetGrantVote = { readonly node: RedlockNode; readonly vote: "for"; readonly keys: readonly KeyGrantVote[] };

/** One node's answer to the acquire-all script. */
export type KeySetVote = KeySetGrantVote | RefusalVote;

/** A node's reply to the acquire-all script for `count` keys as its vote; a bare 1: every key a fresh grant of `proposal`. */
export function toKeySetVote(reply: NodeReply<unknown>, proposal: bigint | null, count: number): KeySetVote {
  const { node } = reply;
  if (reply.ok && reply.value === 1) return { node, vote: "for", keys: Array.from({ length: count }, () => ({ token: proposal, holdCount: 1 })) };
  const answer = reply.ok ? (reply.value as unknown[]) : undefined;
  if (answer?.[0] !== 1) return toRefusalVote(reply);
  const keys = (answer.slice(1) as Array<[unknown, unknown]>).map(([token, holdCount]) => ({ token: parseStoredToken(token), holdCount: Number(holdCount) }));
  return { node, vote: "for", keys };
}

/** The nodes where an attempt may have taken something (they granted, or their answer was lost): where undoing it goes. */
export function mayHaveGranted(votes: readonly (RefusalVote | { readonly node: RedlockNode; readonly vote: "for" })[]): RedlockNode[] {
  return votes.filter((vote) => vote.vote !== "against" && vote.vote !== "outdated").map((vote) => vote.node);
}

/** A node's reply that is no grant, `{0, ms left}` or `{-1, counter}` (or a failure), as its vote. */
export function toRefusalVote(reply: NodeReply<unknown>): RefusalVote {
  const { node } = reply;
  if (!reply.ok) return { node, vote: "error", error: reply.error };
  const answer = reply.value as unknown[];
  if (answer[0] === -1) return { node, vote: "outdated", counter: BigInt(String(answer[1])) };
  return { node, vote: "against", leftMs: Number(answer[1]) };
}

/** A vote as a refused attempt reports it. */
export function acquireOutcome(vote: RefusalVote | { readonly node: RedlockNode; readonly vote: "for" }): NodeOutcome {
  if (vote.vote === "outdated") return toOutcome(vote.node, "against");
  return toOutcome(vote.node, vote.vote, vote.vote === "error" ? vote.error : undefined);
}
