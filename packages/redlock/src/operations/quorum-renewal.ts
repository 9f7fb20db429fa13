import { type NodeOutcome, QuorumNotReachedError } from "@distlock/core";
import type { DriverRenewal } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import { RENEW_SCRIPT, type RedisScript } from "@distlock/redis/internal";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import type { LeaseBudget } from "../quorum/lease-budget.js";
import { type NodeSet, toOutcome } from "../quorum/node-set.js";
import type { QuorumContext } from "./quorum-context.js";

/** What a renewal extends: the script, the key it is sent for a name, and how many nodes must renew each lease. */
export interface RenewalTarget {
  /** Takes KEYS (one per lease) and, per lease, owner secret and lease ms; replies one 1|0 per key. */
  readonly script: RedisScript;
  readonly keyOf: (key: string) => string;
  readonly quorumOf: (renewal: DriverRenewal) => number;
}

/** Extending leases on a quorum: batches of at most `renewBatchSize` per node call, each lease decided by its own votes. */
export class QuorumRenewal {
  readonly #nodes: NodeSet;
  readonly #budget: LeaseBudget;
  readonly #settings: ResolvedRedlockLockOptions;
  readonly #target: RenewalTarget;

  /** `target` defaults to a lock's stored hold, renewed on a majority. */
  constructor(context: QuorumContext, target?: RenewalTarget) {
    this.#nodes = context.nodes;
    this.#budget = context.budget;
    this.#settings = context.settings;
    this.#target = target ?? { script: RENEW_SCRIPT, keyOf: (key) => context.layout.lockKey(key), quorumOf: () => context.nodes.quorum };
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const startedAt = monotonicNow();
    const outcomes = renewals.map((): NodeOutcome[] => []);
    await Promise.all(this.#batches(renewals.length).map((batch) => this.#renewBatch(renewals, batch, outcomes)));
    const quorums = renewals.map((renewal) => this.#target.quorumOf(renewal));
    const decided = renewals.map(({ ttlMs }, i) => {
      const votes = outcomes[i] as NodeOutcome[];
      const granted = votes.filter((o) => o.vote === "for").length;
      const quorum = quorums[i] as number;
      if (granted >= quorum && this.#budget.validityMs(ttlMs, startedAt) > 0) return true;
      return granted + votes.filter((o) => o.vote === "error").length < quorum ? false : undefined;
    });
    const undecided = decided.indexOf(undefined);
    if (undecided !== -1) throw new QuorumNotReachedError("renew", quorums[undecided] as number, outcomes[undecided] as NodeOutcome[]);
    return decided as boolean[];
  }

  async #renewBatch(renewals: readonly DriverRenewal[], batch: readonly number[], outcomes: NodeOutcome[][]): Promise<void> {
    const keys = batch.map((i) => this.#target.keyOf((renewals[i] as DriverRenewal).key));
    const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, this.#budget.leaseMs((renewals[i] as DriverRenewal).ttlMs)]);
    const bound = this.#budget.bound("renew", Math.min(...batch.map((i) => (renewals[i] as DriverRenewal).ttlMs)));
    const replies = await this.#nodes.runScript({ operation: "renew", script: this.#target.script, keys, args }, { bound });
    for (const reply of replies) {
      batch.forEach((index, j) => {
        const vote = reply.ok ? ((reply.value as number[])[j] === 1 ? "for" : "against") : "error";
        (outcomes[index] as NodeOutcome[]).push(toOutcome(reply.node, vote, reply.ok ? undefined : reply.error));
      });
    }
  }

  /** Index groups of `count` renewals, at most `renewBatchSize` long. */
  #batches(count: number): number[][] {
    const size = this.#settings.renewBatchSize;
    return Array.from({ length: Math.ceil(count / size) }, (_, b) => Array.from({ length: Math.min(size, count - b * size) }, (_, i) => b * size + i));
  }
}
