import type { DriverAcquireRequest } from "@distlock/core/driver";
import { RENEW_SCRIPT } from "@distlock/redis/internal";
import type { QuorumContext } from "./quorum-context.js";
import type { CastVote } from "./vote-refusal.js";

/**
 * A grant that other owners contested (some node voted against or outdated) is checked once more before it is handed
 * out: a majority of the granting nodes must still hold every key of it (one renewal call per granting node). With a
 * bare majority, one node that dropped its copy early (clock drift) would leave the owner without a majority from the
 * start. Uncontended grants skip this.
 */
export async function stillHeld(context: QuorumContext, requests: readonly DriverAcquireRequest[], votes: readonly CastVote[]): Promise<boolean> {
  if (votes.every((vote) => vote.vote === "for" || vote.vote === "error")) return true;
  const { nodes, layout, budget } = context;
  const granting = votes.filter((vote) => vote.vote === "for").map((vote) => vote.node);
  const keys = requests.map(({ key }) => layout.lockKey(key));
  const args = requests.flatMap(({ ownerSecret, ttlMs }) => [ownerSecret, budget.leaseMs(ttlMs)]);
  const bound = budget.bound("acquire", Math.min(...requests.map(({ ttlMs }) => ttlMs)));
  const replies = await nodes.runScript({ operation: "acquire", script: RENEW_SCRIPT, keys, args }, { bound, nodes: granting });
  return keys.every((_, j) => replies.filter((reply) => reply.ok && (reply.value as number[])[j] === 1).length >= nodes.quorum);
}
