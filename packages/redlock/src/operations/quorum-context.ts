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
