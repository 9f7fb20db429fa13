import { maxToken } from "../fencing/stored-token.js";
import type { TokenProposals } from "../fencing/token-proposals.js";
import type { NodeSet } from "../quorum/node-set.js";
import type { KeyGrantVote } from "./acquire-votes.js";

/** What a majority grant of one key comes to. */
export interface QuorumGrant {
  readonly fencingToken: bigint | null;
  readonly holdCount: number;
}

/**
 * One key's majority grant from the granting nodes' votes on it: a fresh one gets the proposal, which every granting node
 * stored (later proposals go above it); a re-entry keeps its hold's token and the count a majority reached, and is only
 * one when a majority already held the key for this owner (undefined otherwise: the earlier hold lost its majority).
 * The token is null without fencing.
 */
export function quorumGrant(nodes: NodeSet, proposals: TokenProposals, granted: readonly KeyGrantVote[], proposal: bigint | null): QuorumGrant | undefined {
  const reentered = granted.filter((vote) => vote.holdCount > 1);
  if (reentered.length === 0) {
    if (proposal !== null) proposals.raiseAbove(proposal);
    return { fencingToken: proposal, holdCount: 1 };
  }
  if (reentered.length < nodes.quorum) return undefined;
  const fencingToken = proposal === null ? null : (maxToken(reentered.map((vote) => vote.token)) ?? null);
  return { fencingToken, holdCount: nodes.majorityValue(granted.map((vote) => vote.holdCount)) ?? 1 };
}
