import { QuorumNotReachedError } from "@distlock/core";
import type { NodeReply } from "../connection/redlock-node.js";
import type { NodeSet } from "../quorum/node-set.js";
import { QUORUM_FORCE_RELEASE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "../scripts/quorum-lock-scripts.js";
import { assertMajorityReachable, replyOutcome } from "./node-replies.js";
import { type QuorumContext, runEverywhere } from "./quorum-context.js";

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
      { bound: budget.bound("release"), enough: (answers) => releaseDecided(nodes, answers) },
    );
    const counts = replies.flatMap((reply) => (releasedHere(reply) ? [reply.value as number] : []));
    const errors = replies.filter((reply) => !reply.ok).length;
    if (counts.length >= nodes.quorum) return { held: true, holdCount: nodes.majorityValue(counts) ?? 0 };
    if (counts.length + errors < nodes.quorum) return { held: false, holdCount: 0 };
    throw new QuorumNotReachedError(
      "release",
      nodes.quorum,
      replies.map((reply) => replyOutcome(reply, (value) => (value as number) >= 0)),
    );
  }

  async forceRelease(key: string): Promise<boolean> {
    const { nodes, layout } = this.#context;
    const replies = await runEverywhere(this.#context, "forceRelease", QUORUM_FORCE_RELEASE_SCRIPT, [layout.tag(key)], []);
    if (replies.some((reply) => reply.ok && reply.value === 1)) return true;
    assertMajorityReachable(nodes, "forceRelease", replies);
    return false;
  }
}

/** True once a majority released, or so many nodes did not hold the key that no majority can have. */
function releaseDecided(nodes: NodeSet, answers: ReadonlyArray<NodeReply<unknown> | undefined>): boolean {
  let released = 0;
  let notHeld = 0;
  for (const answer of answers) {
    if (answer === undefined || !answer.ok) continue;
    if (releasedHere(answer)) released += 1;
    else notHeld += 1;
  }
  return released >= nodes.quorum || nodes.unreachable(notHeld);
}

/** True when the node ran the release script and the owner held the lock there (its reply is the hold count left, else -1). */
function releasedHere(reply: NodeReply<unknown>): reply is Extract<NodeReply<unknown>, { ok: true }> {
  return reply.ok && (reply.value as number) >= 0;
}
