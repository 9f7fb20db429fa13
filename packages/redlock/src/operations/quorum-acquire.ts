import type { DriverAcquireRequest, DriverGranted, DriverWait, ReleaseWatch } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow } from "@distlock/core/internal";
import { type ProcessCohorts, type RedisKeyLayout, TOKEN_BLOCK } from "@distlock/redis/internal";
import type { RedlockNode } from "../connection/redlock-node.js";
import type { ResolvedRedlockLockOptions } from "../options/redlock-lock-provider-options.js";
import type { LeaseBudget } from "../quorum/lease-budget.js";
import type { NodeSet } from "../quorum/node-set.js";
import { LEAVE_QUORUM_QUEUE_SCRIPT, QUORUM_ACQUIRE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "../scripts/quorum-lock-scripts.js";
import { QuorumReleaseWatch } from "../waiting/quorum-release-watch.js";
import { type QueuePlace, waitInQuorumLine } from "../waiting/wait-in-quorum-line.js";
import { type AcquireVote, type GrantVote, mayHaveGranted, toAcquireVote } from "./acquire-votes.js";
import type { QuorumContext } from "./quorum-context.js";
import { quorumGrant } from "./quorum-grant.js";
import { stillHeld } from "./still-held.js";
import { validitySpent } from "./validity-spent.js";
import { judgeRefusal, type OUTBID, proposeWhileOutbid, type RefusalJudge } from "./vote-refusal.js";

/** How far a waiting fresh owner's grant raises the nodes' counters past its token: the block its process cohort passes. */
const BLOCK = BigInt(TOKEN_BLOCK);

/**
 * Acquiring on a majority: every node votes on the lock with one proposed fencing token; waiters queue on every node in
 * one order (by ticket), and a release announces the first waiter, so only it retries.
 */
export class QuorumAcquire {
  readonly #nodes: NodeSet;
  readonly #layout: RedisKeyLayout;
  readonly #budget: LeaseBudget;
  readonly #settings: ResolvedRedlockLockOptions;
  readonly #context: QuorumContext;
  /** The fencing proposals, shared with the multi-key sets of the driver, and how refusals are judged. */
  readonly #judge: RefusalJudge;
  /** This process's cohorts (undefined when holds pass nothing here): a fresh owner's grant through the line starts one. */
  readonly #cohorts: ProcessCohorts | undefined;

  constructor(context: QuorumContext, judge: RefusalJudge, cohorts: ProcessCohorts | undefined) {
    this.#context = context;
    this.#judge = judge;
    this.#cohorts = cohorts;
    this.#nodes = context.nodes;
    this.#layout = context.layout;
    this.#budget = context.budget;
    this.#settings = context.settings;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#tryAcquire(request, undefined);
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return waitInQuorumLine(
      {
        attempt: (place) => this.#tryAcquire(request, place),
        watchTurn: (place, lastAttemptAt) => this.#watchTurn(request.key, place, lastAttemptAt),
        leave: (place) => this.#leave(request.key, place),
        waiterLeaseMs: this.#settings.waiterLeaseMs,
      },
      request.ttlMs,
      wait.signal,
    );
  }

  /** The nodes' votes on the attempt, in node order: every node's, or those in once they decide it (`decidedEarly`, outside the line). */
  async #requestVotes(request: DriverAcquireRequest, proposal: bigint | null, place: QueuePlace | undefined, reserving: boolean): Promise<AcquireVote[]> {
    const { key, ownerSecret, holder, ttlMs } = request;
    const keys = [this.#layout.tag(key)];
    const args = [ownerSecret, holder, this.#budget.leaseMs(ttlMs), proposal?.toString() ?? "", ...placeArgs(place)];
    if (reserving) args.push(((proposal as bigint) + BLOCK).toString());
    const replies = await this.#nodes.runScript(
      { operation: "acquire", script: QUORUM_ACQUIRE_SCRIPT, keys, args },
      { bound: this.#budget.bound("acquire", ttlMs), enough: place === undefined ? this.#context.decidedEarly : undefined },
    );
    return replies.map((reply) => toAcquireVote(reply, proposal));
  }

  /** One attempt, proposing again at once while outdated proposals cost it the majority. */
  #tryAcquire(request: DriverAcquireRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult> {
    return proposeWhileOutbid(() => this.#attempt(request, place), this.#judge.jitterMs);
  }

  /**
   * One round: every node votes on the lock with the same proposed token (a waiter's `place` joins the queue where it
   * is refused). Granted when a majority granted alike and the validity is still positive once every node answered (or
   * timed out); a granted waiter then leaves the queues it is still in.
   */
  async #attempt(request: DriverAcquireRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult | typeof OUTBID> {
    const startedAt = monotonicNow();
    const proposal = this.#settings.fencing ? this.#judge.proposals.next() : null;
    // A waiting fresh owner's grant comes through the line: it reserves a token block for its process cohort on every
    // node that grants it (a majority). Core's first attempt, and so a free key taken with empty queues, reserves none.
    const reserving = place !== undefined && request.freshOwner === true && proposal !== null && this.#cohorts !== undefined;
    const votes = await this.#requestVotes(request, proposal, place, reserving);
    const granted = votes.filter((vote): vote is GrantVote => vote.vote === "for");
    if (granted.length < this.#nodes.quorum) {
      await this.#undo(request, votes, place);
      return judgeRefusal(this.#judge, votes, granted.length);
    }
    const quorumGranted = quorumGrant(this.#nodes, this.#judge.proposals, granted, proposal);
    // Handed out only once every node voted: an owner then holds every node it could get, so losing a minority's
    // copies early (clock drift) still leaves it a majority; unless `awaitEveryVote` is off and the votes in were a
    // majority of fresh grants (`context.decidedEarly`), when the slower nodes run the attempt after the hand-out.
    if (quorumGranted === undefined || !(await stillHeld(this.#context, [request], votes))) {
      await this.#undo(request, votes, place);
      return { acquired: false, retryAfterMs: this.#judge.jitterMs() };
    }
    if (this.#budget.validityMs(request.ttlMs, startedAt) <= 0) {
      await this.#undo(request, votes, place);
      throw validitySpent(`"${request.key}"`, startedAt, request.ttlMs);
    }
    if (place !== undefined && granted.length < votes.length) {
      await this.#leave(request.key, place, { won: votes.filter((vote) => vote.vote !== "for").map((vote) => vote.node) });
    }
    const grant: DriverGranted = { acquired: true, ...quorumGranted, ttlMs: request.ttlMs, grantedAt: startedAt };
    const queued = reserving ? Math.max(0, ...votes.map((vote) => (vote.vote === "for" ? vote.queued : 0))) : 0;
    this.#cohorts?.granted(request, grant, startedAt, queued, reserving);
    return grant;
  }

  /**
   * Drops this attempt's level on every node that did not refuse, including those whose answer was lost (one connection
   * keeps the order); a waiter keeps its place in those nodes' queues.
   */
  async #undo(request: DriverAcquireRequest, votes: readonly AcquireVote[], place: QueuePlace | undefined): Promise<void> {
    const targets = mayHaveGranted(votes);
    if (targets.length === 0) return;
    const args = [request.ownerSecret, ...placeArgs(place)];
    const keys = [this.#layout.tag(request.key)];
    await this.#nodes.runScript({ operation: "release", script: QUORUM_RELEASE_SCRIPT, keys, args }, { bound: this.#budget.bound("release"), nodes: targets });
  }

  /**
   * Takes `place` out of the queues (best effort: an entry left behind expires with its lease): of every node when the
   * waiter gives up, announcing the next waiter where the lock is free; only of the nodes that refused it when it `won`
   * on the others, silently, since waking the next waiter now would only send an attempt that the winner refuses.
   */
  async #leave(key: string, place: QueuePlace, { won }: { won?: readonly RedlockNode[] } = {}): Promise<void> {
    const args = [place.id, won === undefined ? "announce" : ""];
    const keys = [this.#layout.tag(key)];
    await this.#nodes.runScript({ operation: "leave", script: LEAVE_QUORUM_QUEUE_SCRIPT, keys, args }, { bound: this.#budget.bound("release"), nodes: won });
  }

  /** Hears every node announce releases and name its first waiter (see `QuorumReleaseWatch` for when `place` wakes). */
  async #watchTurn(key: string, place: QueuePlace, lastAttemptAt: () => number): Promise<ReleaseWatch> {
    const watch = new QuorumReleaseWatch({ waiterId: place.id, needed: this.#nodes.quorum, lastAttemptAt });
    const channel = this.#layout.releaseChannel(key);
    const replies = await this.#nodes.fanOut((node) => node.listen(channel, (message) => watch.hear(node.name, message)));
    const stops = replies.flatMap((reply) => (reply.ok ? [reply.value] : []));
    watch.subscribed(stops, stops.length === replies.length);
    return watch;
  }
}

/** The waiter arguments of the acquire and give-back (undo) scripts: id, ticket and lease, or one "" for an attempt that does not wait. */
function placeArgs(place: QueuePlace | undefined): Array<string | number> {
  return place === undefined ? [""] : [place.id, place.ticket, place.leaseMs];
}
