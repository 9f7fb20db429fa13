import { QuorumNotReachedError } from "@distlock/core";
import type { DriverRefused } from "@distlock/core/driver";
import type { RedlockNode } from "../connection/redlock-node.js";
import type { TokenProposals } from "../fencing/token-proposals.js";
import type { NodeSet } from "../quorum/node-set.js";
import { acquireOutcome, type RefusalVote } from "./acquire-votes.js";

/** A node's vote on an attempt at one key or a set, as far as judging a refusal reads it. */
export type CastVote = RefusalVote | { readonly node: RedlockNode; readonly vote: "for" };

/** How many times one attempt proposes a higher token after a majority found its proposal outdated. */
const MAX_OUTBIDS = 2;

/** An attempt whose token proposal was outdated on enough nodes to have cost it the majority: propose again at once. */
export const OUTBID = Symbol("outbid");

/** What judging a refused vote needs: the nodes, the proposals to raise, and the pause before a retry. */
export interface RefusalJudge {
  readonly nodes: NodeSet;
  readonly proposals: TokenProposals;
  /** A random pause of at least 1 ms, at most the configured jitter. */
  readonly jitterMs: () => number;
}

/** Runs `attempt`, again at once (at most `MAX_OUTBIDS` times) while outdated proposals cost it the majority. */
export async function proposeWhileOutbid<T>(attempt: () => Promise<T | typeof OUTBID>, jitterMs: () => number): Promise<T | DriverRefused> {
  let result = await attempt();
  for (let outbids = 0; result === OUTBID && outbids < MAX_OUTBIDS; outbids++) result = await attempt();
  return result === OUTBID ? { acquired: false, retryAfterMs: jitterMs() } : result;
}

/**
 * A failed attempt: too many nodes down → QUORUM_NOT_REACHED; held (or promised to a waiter) by a majority → wait for
 * that lease (or turn); outdated proposals that cost the majority → propose above the nodes' counters at once; a split
 * vote → jittered retry. `votes` are the nodes' votes, `granted` how many were for.
 */
export function judgeRefusal(judge: RefusalJudge, votes: readonly CastVote[], granted: number): DriverRefused | typeof OUTBID {
  const { nodes, proposals } = judge;
  const outcomes = votes.map(acquireOutcome);
  if (nodes.unreachable(outcomes.filter((o) => o.vote === "error").length)) throw new QuorumNotReachedError("acquire", nodes.quorum, outcomes);
  const leases = votes.flatMap((vote) => (vote.vote === "against" ? [vote.leftMs] : []));
  if (leases.length >= nodes.quorum) return { acquired: false, retryAfterMs: Math.max(1, ...leases) };
  const outdated = votes.flatMap((vote) => (vote.vote === "outdated" ? [vote.counter] : []));
  for (const counter of outdated) proposals.raiseAbove(counter);
  if (outdated.length > 0 && granted + outdated.length >= nodes.quorum) return OUTBID;
  return { acquired: false, retryAfterMs: judge.jitterMs() };
}
