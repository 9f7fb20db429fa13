import { type NodeOutcome, QuorumNotReachedError } from "@distlock/core";
import type { DriverRenewal } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import { RENEW_SCRIPT, type RedisKeyLayout } from "@distlock/redis/internal";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import type { LeaseBudget } from "../quorum/lease-budget.js";
import { type NodeSet, toOutcome } from "../quorum/node-set.js";
import type { QuorumContext } from "./quorum-context.js";

/** Extending leases on a majority: batches of at most `renewBatchSize` per node call, each lease decided by its own votes. */
export class QuorumRenewal {
  readonly #nodes: NodeSet;
  readonly #layout: RedisKeyLayout;
  readonly #budget: LeaseBudget;
  readonly #settings: ResolvedRedlockLockOptions;

  constructor(context: QuorumContext) {
    this.#nodes = context.nodes;
    this.#layout = context.layout;
    this.#budget = context.budget;
    this.#settings = context.settings;
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const startedAt = monotonicNow();
    const outcomes = renewals.map((): NodeOutcome[] => []);
    await Promise.all(this.#batches(renewals.length).map((batch) => this.#renewBatch(renewals, batch, outcomes)));
    const decided = renewals.map(({ ttlMs }, i) => {
      const votes = outcomes[i] as NodeOutcome[];
      const granted = votes.filter((o) => o.vote === "for").length;
      if (granted >= this.#nodes.quorum && this.#budget.validityMs(ttlMs, startedAt) > 0) return true;
      return granted + votes.filter((o) => o.vote === "error").length < this.#nodes.quorum ? false : undefined;
    });
    const undecided = decided.indexOf(undefined);
    if (undecided !== -1) throw new QuorumNotReachedError("renew", this.#nodes.quorum, outcomes[undecided] as NodeOutcome[]);
    return decided as boolean[];
  }

  async #renewBatch(renewals: readonly DriverRenewal[], batch: readonly number[], outcomes: NodeOutcome[][]): Promise<void> {
    const keys = batch.map((i) => this.#layout.lockKey((renewals[i] as DriverRenewal).key));
    const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, this.#budget.leaseMs((renewals[i] as DriverRenewal).ttlMs)]);
    const bound = this.#budget.bound("renew", Math.min(...batch.map((i) => (renewals[i] as DriverRenewal).ttlMs)));
    const replies = await this.#nodes.runScript({ operation: "renew", script: RENEW_SCRIPT, keys, args }, { bound });
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
