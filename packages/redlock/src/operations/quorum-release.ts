import { QUORUM_FORCE_RELEASE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "../scripts/quorum-lock-scripts.js";
import { assertMajorityReachable } from "./node-replies.js";
import { type QuorumContext, runEverywhere } from "./quorum-context.js";
import { type CountLeft, releaseDecided, releaseOutcome } from "./release-votes.js";

/** A node's reply to the release script: the hold count left, or -1. */
const countOfOneKey: CountLeft = (value) => value as number;

/** Releasing on a majority: an owner's level, or (`forceRelease`) whoever holds the key. */
export class QuorumRelease {
  readonly #context: QuorumContext;

  constructor(context: QuorumContext) {
    this.#context = context;
  }

  /**
   * Drops one level of `ownerSecret`'s hold on every node; `lastPassed` (a process cohort's give-back) lowers each node's
   * counter that still shows the hold to the last token its cohort passed.
   */
  async release(key: string, ownerSecret: string, lastPassed?: bigint): Promise<{ held: boolean; holdCount: number }> {
    const { nodes, layout, budget } = this.#context;
    const args = lastPassed === undefined ? [ownerSecret] : [ownerSecret, "", "", "", lastPassed.toString()];
    const keys = [layout.tag(key)];
    // Decided once a majority released, or too many did not hold it: the other nodes run it in order on their connections.
    const replies = await nodes.runScript(
      { operation: "release", script: QUORUM_RELEASE_SCRIPT, keys, args },
      { bound: budget.bound("release"), enough: (answers) => releaseDecided(nodes, answers, countOfOneKey) },
    );
    return releaseOutcome(nodes, replies, countOfOneKey);
  }

  async forceRelease(key: string): Promise<boolean> {
    const { nodes, layout } = this.#context;
    const replies = await runEverywhere(this.#context, "forceRelease", QUORUM_FORCE_RELEASE_SCRIPT, [layout.tag(key)], []);
    if (replies.some((reply) => reply.ok && reply.value === 1)) return true;
    assertMajorityReachable(nodes, "forceRelease", replies);
    return false;
  }
}
