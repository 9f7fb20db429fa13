import type { PermitHolderState, SemaphoreState } from "@distlock/core";
import { assertMajorityReachable } from "../operations/node-replies.js";
import { type QuorumContext, runEverywhere } from "../operations/quorum-context.js";
import { QUORUM_SEMAPHORE_INSPECT_SCRIPT } from "./quorum-semaphore-scripts.js";
import { semaphoreQuorum } from "./semaphore-quorum.js";

/** One grant as one node shows it. */
interface NodeGrant {
  readonly holder: string;
  readonly count: number;
  readonly token: string;
  readonly leftMs: number;
}

/**
 * The quorum view of a semaphore: the permit count and waiters a majority of nodes reach, and the grants that enough
 * nodes (its `semaphoreQuorum`) show, each with the lease left on that many.
 */
export class SemaphoreInspection {
  readonly #context: QuorumContext;

  constructor(context: QuorumContext) {
    this.#context = context;
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    const { nodes, layout, settings } = this.#context;
    const replies = await runEverywhere(this.#context, "inspect", QUORUM_SEMAPHORE_INSPECT_SCRIPT, [layout.tag(name)], [""]);
    assertMajorityReachable(nodes, "inspect", replies);
    const totals: number[] = [];
    const queued: number[] = [];
    const grants = new Map<string, NodeGrant[]>();
    for (const reply of replies) {
      const value = reply.ok ? (reply.value as Array<string | number>) : [0];
      if (value[0] === 0) continue;
      totals.push(Number(value[0]));
      queued.push(Number(value[1]));
      for (let i = 2; i + 4 < value.length; i += 5) {
        const grant = { holder: String(value[i + 1]), count: Number(value[i + 2]), token: String(value[i + 3]), leftMs: Number(value[i + 4]) };
        grants.set(String(value[i]), [...(grants.get(String(value[i])) ?? []), grant]);
      }
    }
    const permits = nodes.majorityValue(totals);
    if (permits === undefined) return null;
    const quorum = semaphoreQuorum(nodes.nodes.length, name, permits);
    const holders: PermitHolderState[] = [];
    for (const shown of grants.values()) {
      const leftMs = [...shown.map((grant) => grant.leftMs)].sort((a, b) => b - a)[quorum - 1];
      const first = shown[0] as NodeGrant;
      if (leftMs === undefined || leftMs <= 0) continue;
      const fencingToken = settings.fencing && first.token !== "" ? BigInt(first.token) : null;
      holders.push({ holder: first.holder, count: first.count, fencingToken, ttlRemainingMs: leftMs });
    }
    const waiters = nodes.majorityValue(queued) ?? 0;
    if (holders.length === 0 && waiters === 0) return null;
    holders.sort((a, b) => a.ttlRemainingMs - b.ttlRemainingMs);
    return { name, permits, inUse: holders.reduce((sum, holder) => sum + holder.count, 0), holders, waiters };
  }
}
