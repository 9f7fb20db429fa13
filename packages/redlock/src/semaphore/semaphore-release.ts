import { QuorumNotReachedError } from "@distlock/core";
import type { NodeReply } from "../connection/redlock-node.js";
import { replyOutcome } from "../operations/node-replies.js";
import type { QuorumContext } from "../operations/quorum-context.js";
import { QUORUM_SEMAPHORE_RELEASE_SCRIPT } from "./quorum-semaphore-scripts.js";

/** Giving a grant's permits back on every node: held while `quorum` nodes still had it. */
export class SemaphoreRelease {
  readonly #context: QuorumContext;

  constructor(context: QuorumContext) {
    this.#context = context;
  }

  /**
   * True once `quorum` nodes gave the grant back, false once so many did not have it that no quorum can: the other
   * nodes run the release in order on their connections. QUORUM_NOT_REACHED when neither is known.
   */
  async release(name: string, ownerSecret: string, quorum: number): Promise<boolean> {
    const { nodes, layout, budget } = this.#context;
    const total = nodes.nodes.length;
    const tally = (answers: ReadonlyArray<NodeReply<unknown> | undefined>) => {
      const ok = answers.filter((answer) => answer?.ok === true) as Array<Extract<NodeReply<unknown>, { ok: true }>>;
      const held = ok.filter((answer) => answer.value === 1).length;
      return { held, notHeld: ok.length - held };
    };
    const replies = await nodes.runScript(
      { operation: "release", script: QUORUM_SEMAPHORE_RELEASE_SCRIPT, keys: [layout.tag(name)], args: [ownerSecret] },
      {
        bound: budget.bound("release"),
        enough: (answers) => {
          const { held, notHeld } = tally(answers);
          return held >= quorum || total - notHeld < quorum;
        },
      },
    );
    const { held, notHeld } = tally(replies);
    if (held >= quorum) return true;
    if (total - notHeld < quorum) return false;
    throw new QuorumNotReachedError(
      "release",
      quorum,
      replies.map((reply) => replyOutcome(reply, (value) => value === 1)),
    );
  }
}
