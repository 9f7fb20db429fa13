import { type LockState, QuorumNotReachedError } from "@distlock/core";
import type { RedisKeyLayout } from "@distlock/redis/internal";
import { INSPECT_SCRIPT } from "@distlock/redis/internal";
import { maxToken, parseStoredToken } from "../fencing/stored-token.js";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import type { NodeSet } from "../quorum/node-set.js";
import { replyOutcome } from "./node-replies.js";
import { type QuorumContext, runEverywhere } from "./quorum-context.js";

/** Reading a key's state: the holder a majority of nodes agree on, or null. */
export class QuorumInspection {
  readonly #context: QuorumContext;
  readonly #nodes: NodeSet;
  readonly #layout: RedisKeyLayout;
  readonly #settings: ResolvedRedlockLockOptions;

  constructor(context: QuorumContext) {
    this.#context = context;
    this.#nodes = context.nodes;
    this.#layout = context.layout;
    this.#settings = context.settings;
  }

  async inspect(key: string): Promise<LockState | null> {
    const replies = await runEverywhere(this.#context, "inspect", INSPECT_SCRIPT, [this.#layout.tag(key)], []);
    const byHolder = new Map<string, Array<[string, number, string, number, number]>>();
    for (const reply of replies) {
      if (!reply.ok || (reply.value as unknown[])[0] !== 1) continue;
      const [, holder, holdCount, token, leftMs, waiters] = reply.value as [number, string, number, string, number, number];
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), [holder, Number(holdCount), token, Number(leftMs), Number(waiters)]]);
    }
    for (const [holder, states] of byHolder) {
      if (states.length < this.#nodes.quorum) continue;
      const fencingToken = this.#settings.fencing ? (maxToken(states.map(([, , token]) => parseStoredToken(token))) ?? null) : null;
      const holdCount = this.#nodes.majorityValue(states.map(([, count]) => count)) ?? 1;
      const ttlRemainingMs = Math.max(0, this.#nodes.majorityValue(states.map(([, , , left]) => left)) ?? 0);
      const waiters = this.#nodes.majorityValue(states.map(([, , , , queued]) => queued)) ?? 0;
      return { key, holder, holdCount, fencingToken, ttlRemainingMs, waiters };
    }
    const errors = replies.filter((reply) => !reply.ok).length;
    if (this.#nodes.unreachable(errors))
      throw new QuorumNotReachedError(
        "inspect",
        this.#nodes.quorum,
        replies.map((reply) => replyOutcome(reply, () => true)),
      );
    return null;
  }
}
