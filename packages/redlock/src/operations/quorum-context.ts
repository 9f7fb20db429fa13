import type { RedisKeyLayout, RedisScript } from "@distlock/redis/internal";
import type { NodeReply } from "../connection/redlock-node.js";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import type { LeaseBudget } from "../quorum/lease-budget.js";
import type { NodeSet } from "../quorum/node-set.js";

/** What every operation of a `RedlockLockDriver` runs on. */
export interface QuorumContext {
  readonly nodes: NodeSet;
  readonly layout: RedisKeyLayout;
  readonly budget: LeaseBudget;
  readonly settings: ResolvedRedlockLockOptions;
  /**
   * When the answers in decide an acquire outside any line before every node answered (`freshMajority`, with
   * `awaitEveryVote: false`); undefined: only once every node did.
   */
  readonly decidedEarly: ((answers: ReadonlyArray<NodeReply<unknown> | undefined>) => boolean) | undefined;
}

/** Runs `script` on every node, bounded by `operation`'s budget. */
export function runEverywhere(
  context: QuorumContext,
  operation: string,
  script: RedisScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<NodeReply<unknown>[]> {
  return context.nodes.runScript({ operation, script, keys, args }, { bound: context.budget.bound(operation) });
}
