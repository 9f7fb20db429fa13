import { QuorumNotReachedError } from "@distlock/core";
import type { RedisKeyLayout } from "@distlock/redis/internal";
import type { LeaseBudget } from "../quorum/lease-budget.js";
import type { NodeSet } from "../quorum/node-set.js";
import { QUORUM_FORCE_RELEASE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "../scripts/quorum-lock-scripts.js";
import { heldHere, replyOutcome } from "./node-replies.js";
import { type QuorumContext, runEverywhere } from "./quorum-context.js";

/** Releasing on a majority: an owner's level, or (`forceRelease`) whoever holds the key. */
export class QuorumRelease {
  readonly #context: QuorumContext;
  readonly #nodes: NodeSet;
  readonly #layout: RedisKeyLayout;
  readonly #budget: LeaseBudget;

  constructor(context: QuorumContext) {
    this.#context = context;
    this.#nodes = context.nodes;
    this.#layout = context.layout;
    this.#budget = context.budget;
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    // Decided once a majority released, or too many did not hold it: the other nodes run it in order on their connections.
    const { replies } = await this.#nodes.fanOutUntil(
      (node) => node.run("release", QUORUM_RELEASE_SCRIPT, this.#layout.queueScriptKeys(key), [ownerSecret, this.#layout.releaseChannel(key)]),
      this.#budget.bound("release"),
      (answers) => answers.filter(heldHere).length >= this.#nodes.quorum || this.#nodes.unreachable(answers.filter((a) => a.ok && !heldHere(a)).length),
    );
    const counts = replies.flatMap((reply) => (heldHere(reply) ? [Number((reply.value as number[])[1])] : []));
    const errors = replies.filter((reply) => !reply.ok).length;
    if (counts.length >= this.#nodes.quorum) return { held: true, holdCount: this.#nodes.majorityValue(counts) ?? 0 };
    if (counts.length + errors < this.#nodes.quorum) return { held: false, holdCount: 0 };
    throw new QuorumNotReachedError(
      "release",
      this.#nodes.quorum,
      replies.map((reply) => replyOutcome(reply, (value) => (value as number[])[0] === 1)),
    );
  }

  async forceRelease(key: string): Promise<boolean> {
    const replies = await runEverywhere(this.#context, "forceRelease", QUORUM_FORCE_RELEASE_SCRIPT, this.#layout.queueScriptKeys(key), [
      this.#layout.releaseChannel(key),
    ]);
    if (replies.some((reply) => reply.ok && reply.value === 1)) return true;
    const errors = replies.filter((reply) => !reply.ok).length;
    if (this.#nodes.unreachable(errors))
      throw new QuorumNotReachedError(
        "forceRelease",
        this.#nodes.quorum,
        replies.map((reply) => replyOutcome(reply, () => true)),
      );
    return false;
  }
}
