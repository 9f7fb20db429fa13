import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import { QUORUM_ACQUIRE_ALL_SCRIPT, QUORUM_RELEASE_ALL_SCRIPT } from "../scripts/quorum-key-set-scripts.js";
import { type KeySetGrantVote, type KeySetVote, mayHaveGranted, toKeySetVote } from "./acquire-votes.js";
import type { QuorumContext } from "./quorum-context.js";
import { quorumGrant } from "./quorum-grant.js";
import { type CountLeft, releaseDecided, releaseOutcome } from "./release-votes.js";
import { stillHeld } from "./still-held.js";
import { validitySpent } from "./validity-spent.js";
import { judgeRefusal, type OUTBID, proposeWhileOutbid, type RefusalJudge } from "./vote-refusal.js";

/**
 * Multi-key sets on a quorum: each node runs one script that takes every key of the set or none, and the set is held
 * when a majority granted it whole within the validity of one key's lease; otherwise it is undone on every node that
 * may have granted it. Released with one script per node. A set never waits and never joins a line.
 */
export class QuorumKeySets {
  readonly #context: QuorumContext;
  readonly #judge: RefusalJudge;

  constructor(context: QuorumContext, judge: RefusalJudge) {
    this.#context = context;
    this.#judge = judge;
  }

  /** Every request granted, or none and a refusal (see `LockDriver.tryAcquireAll`). */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    if (requests.length === 0) return Promise.resolve([]);
    return proposeWhileOutbid(() => this.#attempt(requests), this.#judge.jitterMs);
  }

  /** One level of each key's hold dropped for `ownerSecret` on every node; one outcome per key, each decided by its own counts. */
  async releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    const { nodes, layout, budget } = this.#context;
    const counts = keys.map(
      (_, j): CountLeft =>
        (value) =>
          Number((value as unknown[])[j]),
    );
    const call = { operation: "release", script: QUORUM_RELEASE_ALL_SCRIPT, keys: keys.map((key) => layout.tag(key)), args: [ownerSecret] };
    // Decided once every key is: the other nodes run it in order on their connections.
    const replies = await nodes.runScript(call, {
      bound: budget.bound("release"),
      enough: (answers) => counts.every((countLeft) => releaseDecided(nodes, answers, countLeft)),
    });
    return counts.map((countLeft) => releaseOutcome(nodes, replies, countLeft));
  }

  /**
   * One round: every node votes on the whole set with one proposed token. Granted when a majority granted it, each
   * key's grant holds as a single key's would (a re-entry only where a majority held it already), a contested grant
   * is still held, and the validity is still positive once every node answered (or timed out), or once the votes in
   * decide it (`decidedEarly`).
   */
  async #attempt(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused | typeof OUTBID> {
    const { nodes, budget, settings } = this.#context;
    const { ttlMs } = requests[0] as DriverAcquireRequest;
    const startedAt = monotonicNow();
    const proposal = settings.fencing ? this.#judge.proposals.next() : null;
    const votes = await this.#requestVotes(requests, proposal);
    const granted = votes.filter((vote): vote is KeySetGrantVote => vote.vote === "for");
    if (granted.length < nodes.quorum) {
      await this.#undo(requests, votes);
      return judgeRefusal(this.#judge, votes, granted.length);
    }
    const grants = requests.map((_, i) =>
      quorumGrant(
        nodes,
        this.#judge.proposals,
        granted.map((vote) => vote.keys[i] as KeySetGrantVote["keys"][number]),
        proposal,
      ),
    );
    if (grants.includes(undefined) || !(await stillHeld(this.#context, requests, votes))) {
      await this.#undo(requests, votes);
      return { acquired: false, retryAfterMs: this.#judge.jitterMs() };
    }
    if (budget.validityMs(ttlMs, startedAt) <= 0) {
      await this.#undo(requests, votes);
      throw validitySpent(`${requests.length} keys from "${requests[0]?.key}"`, startedAt, ttlMs);
    }
    return requests.map((request, i) => ({ acquired: true, ...grants[i], ttlMs: request.ttlMs, grantedAt: startedAt }) as DriverGranted);
  }

  /** The nodes' votes on the set, in node order: every node's, or those in once they decide it (`decidedEarly`). */
  async #requestVotes(requests: readonly DriverAcquireRequest[], proposal: bigint | null): Promise<KeySetVote[]> {
    const { nodes, layout, budget } = this.#context;
    const { ownerSecret, holder, ttlMs } = requests[0] as DriverAcquireRequest;
    const keys = requests.map(({ key }) => layout.tag(key));
    const args = [ownerSecret, holder, budget.leaseMs(ttlMs), proposal?.toString() ?? ""];
    const replies = await nodes.runScript(
      { operation: "acquire", script: QUORUM_ACQUIRE_ALL_SCRIPT, keys, args },
      {
        bound: budget.bound("acquire", ttlMs),
        enough: this.#context.decidedEarly,
      },
    );
    return replies.map((reply) => toKeySetVote(reply, proposal, requests.length));
  }

  /** Drops this attempt's level of every key on every node that did not refuse, including those whose answer was lost (one connection keeps the order). */
  async #undo(requests: readonly DriverAcquireRequest[], votes: readonly KeySetVote[]): Promise<void> {
    const targets = mayHaveGranted(votes);
    if (targets.length === 0) return;
    const { nodes, layout, budget } = this.#context;
    const keys = requests.map(({ key }) => layout.tag(key));
    const args = [(requests[0] as DriverAcquireRequest).ownerSecret];
    await nodes.runScript({ operation: "release", script: QUORUM_RELEASE_ALL_SCRIPT, keys, args }, { bound: budget.bound("release"), nodes: targets });
  }
}
