import { BackendUnavailableError, PermitsMismatchError, QuorumNotReachedError } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRefused, DriverWait, ReleaseWatch } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow } from "@distlock/core/internal";
import type { RedlockNode } from "../connection/redlock-node.js";
import { TokenProposals } from "../fencing/token-proposals.js";
import { type AcquireVote, acquireOutcome, toAcquireVote } from "../operations/acquire-votes.js";
import type { QuorumContext } from "../operations/quorum-context.js";
import { QuorumReleaseWatch } from "../waiting/quorum-release-watch.js";
import { type QueuePlace, waitInQuorumLine } from "../waiting/wait-in-quorum-line.js";
import { LEAVE_SEMAPHORE_LINE_SCRIPT, QUORUM_SEMAPHORE_ACQUIRE_SCRIPT, QUORUM_SEMAPHORE_RELEASE_SCRIPT } from "./quorum-semaphore-scripts.js";
import { semaphoreQuorum } from "./semaphore-quorum.js";

/** How many times one attempt proposes a higher token after outdated proposals cost it the quorum (as for locks). */
const MAX_OUTBIDS = 2;

/** An attempt whose proposal was outdated on enough nodes to have cost it the quorum: propose again at once. */
const OUTBID = Symbol("outbid");

/** The semaphore's channel where each node names its first waiter. */
export function semaphoreChannel(tag: string): string {
  return `${tag}:sem:released`;
}

/**
 * Taking permits on a quorum (`semaphoreQuorum`): every node votes with one proposed fencing token, waiters queue on
 * every node in ticket order, and a node names its first waiter whenever permits may have become free for it.
 */
export class SemaphoreAcquire {
  readonly #context: QuorumContext;
  readonly #proposals = new TokenProposals();

  constructor(context: QuorumContext) {
    this.#context = context;
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#tryAcquire(request, undefined);
  }

  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    return waitInQuorumLine(
      {
        attempt: (place) => this.#tryAcquire(request, place),
        watchTurn: (place, lastAttemptAt) => this.#watchTurn(request, place, lastAttemptAt),
        leave: (place) => this.leave(request.key, place),
        waiterLeaseMs: this.#context.settings.waiterLeaseMs,
      },
      request.ttlMs,
      wait.signal,
    );
  }

  /** Takes `place` out of the lines of `nodes` (default: all, naming each node's next waiter); best effort. */
  async leave(name: string, place: QueuePlace, won?: readonly RedlockNode[]): Promise<void> {
    const { nodes, layout, budget } = this.#context;
    const call = { operation: "leave", script: LEAVE_SEMAPHORE_LINE_SCRIPT, keys: [layout.tag(name)], args: [place.id, won === undefined ? "announce" : ""] };
    await nodes.runScript(call, { bound: budget.bound("release"), nodes: won });
  }

  async #tryAcquire(request: DriverPermitRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult> {
    let result = await this.#attempt(request, place);
    for (let outbids = 0; result === OUTBID && outbids < MAX_OUTBIDS; outbids++) result = await this.#attempt(request, place);
    return result === OUTBID ? { acquired: false, retryAfterMs: this.#jitterMs() } : result;
  }

  /**
   * One round: granted when `semaphoreQuorum` nodes granted once every node answered (or timed out) and the validity is
   * still positive; every granting node stored the proposal as the grant's token. Otherwise undone where it may have
   * been granted; a granted waiter leaves the lines that still hold its place.
   */
  async #attempt(request: DriverPermitRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult | typeof OUTBID> {
    const { budget, settings } = this.#context;
    const quorum = semaphoreQuorum(this.#context.nodes.nodes.length, request.key, request.permits);
    const startedAt = monotonicNow();
    const proposal = settings.fencing ? this.#proposals.next() : null;
    const votes = await this.#requestVotes(request, proposal, place);
    const granted = votes.filter((vote) => vote.vote === "for");
    if (granted.length < quorum) {
      await this.#undo(request, votes, place);
      return this.#refusal(votes, granted.length, quorum);
    }
    if (proposal !== null) this.#proposals.raiseAbove(proposal);
    if (budget.validityMs(request.ttlMs, startedAt) <= 0) {
      await this.#undo(request, votes, place);
      throw new BackendUnavailableError(
        "redlock",
        `taking permits of "${request.key}" took ${Math.round(monotonicNow() - startedAt)} ms, leaving no validity of its ${request.ttlMs} ms lease; they were given back (raise ttlMs or check the nodes' latency)`,
      );
    }
    if (place !== undefined && granted.length < votes.length) {
      await this.leave(
        request.key,
        place,
        votes.filter((vote) => vote.vote !== "for").map((vote) => vote.node),
      );
    }
    return { acquired: true, fencingToken: proposal, holdCount: 1, ttlMs: request.ttlMs, grantedAt: startedAt };
  }

  /** Every node's vote, in node order; a semaphore in use with another permit count on any node is a `PermitsMismatchError`. */
  async #requestVotes(request: DriverPermitRequest, proposal: bigint | null, place: QueuePlace | undefined): Promise<AcquireVote[]> {
    const { nodes, layout, budget } = this.#context;
    const { key, ownerSecret, holder, ttlMs, permits, count } = request;
    const args = [ownerSecret, holder, budget.leaseMs(ttlMs), permits, count, proposal?.toString() ?? "", ...placeArgs(place)];
    const call = { operation: "acquire", script: QUORUM_SEMAPHORE_ACQUIRE_SCRIPT, keys: [layout.tag(key)], args };
    const replies = await nodes.runScript(call, { bound: budget.bound("acquire", ttlMs) });
    const mismatch = replies.find((reply) => reply.ok && (reply.value as number[])[0] === -2);
    if (mismatch?.ok) {
      await this.#undo(
        request,
        replies.map((reply) => toAcquireVote(reply, proposal)),
        place,
      );
      throw new PermitsMismatchError(key, permits, Number((mismatch.value as number[])[1]));
    }
    return replies.map((reply) => toAcquireVote(reply, proposal));
  }

  /** Gives back this attempt's permits on every node that did not refuse (a lost answer may be a grant); a waiter keeps its place. */
  async #undo(request: DriverPermitRequest, votes: readonly AcquireVote[], place: QueuePlace | undefined): Promise<void> {
    const targets = votes.filter((vote) => vote.vote !== "against" && vote.vote !== "outdated").map((vote) => vote.node);
    if (targets.length === 0) return;
    const { nodes, layout, budget } = this.#context;
    const call = {
      operation: "release",
      script: QUORUM_SEMAPHORE_RELEASE_SCRIPT,
      keys: [layout.tag(request.key)],
      args: [request.ownerSecret, ...placeArgs(place)],
    };
    await nodes.runScript(call, { bound: budget.bound("release"), nodes: targets });
  }

  /** Hears every node name its first waiter; wakes once `quorum` nodes did so since the last attempt and one named `place`. */
  async #watchTurn(request: DriverPermitRequest, place: QueuePlace, lastAttemptAt: () => number): Promise<ReleaseWatch> {
    const { nodes, layout } = this.#context;
    const needed = semaphoreQuorum(nodes.nodes.length, request.key, request.permits);
    const watch = new QuorumReleaseWatch({ waiterId: place.id, needed, lastAttemptAt });
    const channel = semaphoreChannel(layout.tag(request.key));
    const replies = await nodes.fanOut((node) => node.listen(channel, (message) => watch.hear(node.name, message)));
    const stops = replies.flatMap((reply) => (reply.ok ? [reply.value] : []));
    watch.subscribed(stops, stops.length === replies.length);
    return watch;
  }

  /**
   * A refused round: so many nodes failed that no quorum can form → QUORUM_NOT_REACHED; refused by so many that no
   * quorum can form → wait for the longest lease or place among them; outdated proposals that cost the quorum → propose
   * above the counters at once; otherwise (a split between contenders) a jittered retry.
   */
  #refusal(votes: readonly AcquireVote[], granted: number, quorum: number): DriverRefused | typeof OUTBID {
    const total = votes.length;
    const outcomes = votes.map(acquireOutcome);
    if (total - outcomes.filter((o) => o.vote === "error").length < quorum) throw new QuorumNotReachedError("acquire", quorum, outcomes);
    const leases = votes.flatMap((vote) => (vote.vote === "against" ? [vote.leftMs] : []));
    if (total - leases.length < quorum) return { acquired: false, retryAfterMs: Math.max(1, ...leases) };
    const outdated = votes.flatMap((vote) => (vote.vote === "outdated" ? [vote.counter] : []));
    for (const counter of outdated) this.#proposals.raiseAbove(counter);
    if (outdated.length > 0 && granted + outdated.length >= quorum) return OUTBID;
    return { acquired: false, retryAfterMs: this.#jitterMs() };
  }

  #jitterMs(): number {
    return 1 + Math.floor(Math.random() * this.#context.settings.retryJitterMs);
  }
}

/** The waiter arguments of the acquire and undo scripts: id, ticket and lease, or nothing for an attempt that does not wait. */
function placeArgs(place: QueuePlace | undefined): Array<string | number> {
  return place === undefined ? [""] : [place.id, place.ticket, place.leaseMs];
}
