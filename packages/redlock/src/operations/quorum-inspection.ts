import type { LockState } from "@distlock/core";
import { firstHeld } from "@distlock/core/internal";
import { maxToken, parseStoredToken } from "../fencing/stored-token.js";
import { QUORUM_INSPECT_SCRIPT } from "../scripts/hold-scripts.js";
import { assertMajorityReachable } from "./node-replies.js";
import { type QuorumContext, runEverywhere } from "./quorum-context.js";

/** Reading a key's state: the holder a majority of nodes agree on, or null; listing the keys that have one. */
export class QuorumInspection {
  readonly #context: QuorumContext;

  constructor(context: QuorumContext) {
    this.#context = context;
  }

  async inspect(key: string): Promise<LockState | null> {
    const { nodes, layout, settings } = this.#context;
    const replies = await runEverywhere(this.#context, "inspect", QUORUM_INSPECT_SCRIPT, [layout.tag(key)], []);
    const byHolder = new Map<string, Array<[string, number, string, number, number]>>();
    for (const reply of replies) {
      if (!reply.ok || (reply.value as unknown[])[0] !== 1) continue;
      const [, holder, holdCount, token, leftMs, waiters] = reply.value as [number, string, number, string, number, number];
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), [holder, Number(holdCount), token, Number(leftMs), Number(waiters)]]);
    }
    for (const [holder, states] of byHolder) {
      if (states.length < nodes.quorum) continue;
      const fencingToken = settings.fencing ? (maxToken(states.map(([, , token]) => parseStoredToken(token))) ?? null) : null;
      const holdCount = nodes.majorityValue(states.map(([, count]) => count)) ?? 1;
      const ttlRemainingMs = Math.max(0, nodes.majorityValue(states.map(([, , , left]) => left)) ?? 0);
      const waiters = nodes.majorityValue(states.map(([, , , , queued]) => queued)) ?? 0;
      return { key, holder, holdCount, fencingToken, ttlRemainingMs, waiters };
    }
    assertMajorityReachable(nodes, "inspect", replies);
    return null;
  }

  /**
   * SCAN of every node for the stored holds under `prefix`; a majority must answer, so every key a majority holds is
   * seen on at least one of them. Each key found is then read as `inspect` reads it: one held on a minority only
   * (a failed or half-released attempt) is left out.
   */
  async list(prefix: string, limit: number): Promise<LockState[]> {
    const { nodes, layout, budget } = this.#context;
    const { timeoutMs } = budget.bound("list");
    const replies = await nodes.fanOut((node) => node.scan(layout.lockKeyPattern(prefix), timeoutMs));
    assertMajorityReachable(nodes, "list", replies);
    const found = replies.flatMap((reply) => (reply.ok ? [reply.value] : []));
    return firstHeld(layout.keysOfLockKeys(found), limit, (key) => this.inspect(key));
  }
}
