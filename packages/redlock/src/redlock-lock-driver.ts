import { BackendUnavailableError, type LockCapabilities, type LockState, type NodeOutcome, QuorumNotReachedError } from "@distlock/core";
import {
  type DriverAcquireRequest,
  type DriverAcquireResult,
  type DriverGranted,
  type DriverRefused,
  type DriverRenewal,
  type DriverWait,
  type LockDriver,
  monotonicNow,
  type ReleaseWatch,
} from "@distlock/core/driver";
import { INSPECT_SCRIPT, RENEW_SCRIPT, RedisKeyLayout, type RedisScript } from "@distlock/redis/internal";
import { maxToken, parseStoredToken } from "./fencing/stored-token.js";
import { TokenProposals } from "./fencing/token-proposals.js";
import type { RedlockNode } from "./nodes/redlock-node.js";
import type { ResolvedRedlockLockOptions } from "./options/redlock-lock-provider-options.js";
import { LeaseBudget } from "./quorum/lease-budget.js";
import { type NodeReply, type NodeSet, toOutcome } from "./quorum/node-set.js";
import { LEAVE_QUORUM_QUEUE_SCRIPT, QUORUM_ACQUIRE_SCRIPT, QUORUM_FORCE_RELEASE_SCRIPT, QUORUM_RELEASE_SCRIPT } from "./scripts/quorum-lock-scripts.js";
import { QuorumReleaseWatch } from "./waiting/quorum-release-watch.js";
import { type QueuePlace, waitInQuorumQueue } from "./waiting/wait-in-quorum-queue.js";

/** What a `RedlockLockDriver` runs on. */
export interface RedlockLockDriverConfig {
  readonly nodes: NodeSet;
  readonly settings: ResolvedRedlockLockOptions;
}

/** A lease this short cannot survive two round trips and the drift margin. */
const MIN_TTL_MS = 50;

/** How many times one `tryAcquire` proposes a higher token after a majority found its proposal outdated. */
const MAX_OUTBIDS = 2;

/** An attempt whose token proposal was outdated on enough nodes to have cost it the majority: propose again at once. */
const OUTBID = Symbol("outbid");

/** A node that granted (or re-entered) the lock; `token` is what its hash stores, null without fencing. */
type GrantVote = { readonly node: RedlockNode; readonly vote: "for"; readonly token: bigint | null; readonly holdCount: number };

/**
 * One node's answer to the acquire script: `outdated` when the lock was free there but the proposed token was not above
 * the node's counter; `pending` when a majority had granted before it answered.
 */
type AcquireVote =
  | GrantVote
  | { readonly node: RedlockNode; readonly vote: "against"; readonly leftMs: number }
  | { readonly node: RedlockNode; readonly vote: "outdated"; readonly counter: bigint }
  | { readonly node: RedlockNode; readonly vote: "error"; readonly error: unknown }
  | { readonly node: RedlockNode; readonly vote: "pending" };

/**
 * Redlock over independent Redis masters: a key is held while a majority of nodes hold it and the validity
 * (lease − elapsed − drift) is positive. Waiters queue on every node in one order (by ticket); a release announces
 * the first waiter, so only it retries.
 */
export class RedlockLockDriver implements LockDriver {
  readonly backend = "redlock";
  readonly capabilities: LockCapabilities;
  readonly layout: RedisKeyLayout;
  readonly #nodes: NodeSet;
  readonly #settings: ResolvedRedlockLockOptions;
  readonly #budget: LeaseBudget;
  readonly #proposals = new TokenProposals();

  constructor(config: RedlockLockDriverConfig) {
    this.#nodes = config.nodes;
    this.#settings = Object.freeze({ ...config.settings });
    this.#budget = new LeaseBudget(this.#settings);
    this.layout = new RedisKeyLayout(this.#settings.prefix);
    this.capabilities = Object.freeze({ fencing: this.#settings.fencing, fifo: true, serverClock: false, minTtlMs: MIN_TTL_MS, ttlGranularityMs: 1 });
  }

  /** The node set's majority size. */
  get quorum(): number {
    return this.#nodes.quorum;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#tryAcquire(request, undefined);
  }

  acquire(request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
    return waitInQuorumQueue(
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

  isWatching(key: string): boolean {
    const channel = this.layout.releaseChannel(key);
    return this.#nodes.nodes.some((node) => node.isListening(channel));
  }

  async renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const startedAt = monotonicNow();
    const outcomes = renewals.map((): NodeOutcome[] => []);
    await Promise.all(this.#batches(renewals.length).map((batch) => this.#renewBatch(renewals, batch, outcomes)));
    const decided = renewals.map(({ ttlMs }, i) => {
      const votes = outcomes[i] as NodeOutcome[];
      const granted = votes.filter((o) => o.vote === "for").length;
      if (granted >= this.quorum && this.#budget.validityMs(ttlMs, startedAt) > 0) return true;
      return granted + votes.filter((o) => o.vote === "error").length < this.quorum ? false : undefined;
    });
    const undecided = decided.indexOf(undefined);
    if (undecided !== -1) throw new QuorumNotReachedError("renew", this.quorum, outcomes[undecided] as NodeOutcome[]);
    return decided as boolean[];
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    // Decided once a majority released, or too many did not hold it: the other nodes run it in order on their connections.
    const { replies } = await this.#nodes.fanOutUntil(
      (node) => node.run("release", QUORUM_RELEASE_SCRIPT, this.layout.queueScriptKeys(key), [ownerSecret, this.layout.releaseChannel(key)]),
      this.#budget.bound("release"),
      (answers) => answers.filter(heldHere).length >= this.quorum || this.#nodes.unreachable(answers.filter((a) => a.ok && !heldHere(a)).length),
    );
    const counts = replies.flatMap((reply) => (heldHere(reply) ? [Number((reply.value as number[])[1])] : []));
    const errors = replies.filter((reply) => !reply.ok).length;
    if (counts.length >= this.quorum) return { held: true, holdCount: this.#nodes.majorityValue(counts) ?? 0 };
    if (counts.length + errors < this.quorum) return { held: false, holdCount: 0 };
    throw new QuorumNotReachedError(
      "release",
      this.quorum,
      replies.map((reply) => replyOutcome(reply, (value) => (value as number[])[0] === 1)),
    );
  }

  async inspect(key: string): Promise<LockState | null> {
    const replies = await this.#runEverywhere("inspect", INSPECT_SCRIPT, [this.layout.tag(key)], []);
    const byHolder = new Map<string, Array<[string, number, string, number, number]>>();
    for (const reply of replies) {
      if (!reply.ok || (reply.value as unknown[])[0] !== 1) continue;
      const [, holder, holdCount, token, leftMs, waiters] = reply.value as [number, string, number, string, number, number];
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), [holder, Number(holdCount), token, Number(leftMs), Number(waiters)]]);
    }
    for (const [holder, states] of byHolder) {
      if (states.length < this.quorum) continue;
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
        this.quorum,
        replies.map((reply) => replyOutcome(reply, () => true)),
      );
    return null;
  }

  async forceRelease(key: string): Promise<boolean> {
    const replies = await this.#runEverywhere("forceRelease", QUORUM_FORCE_RELEASE_SCRIPT, this.layout.queueScriptKeys(key), [this.layout.releaseChannel(key)]);
    if (replies.some((reply) => reply.ok && reply.value === 1)) return true;
    const errors = replies.filter((reply) => !reply.ok).length;
    if (this.#nodes.unreachable(errors))
      throw new QuorumNotReachedError(
        "forceRelease",
        this.quorum,
        replies.map((reply) => replyOutcome(reply, () => true)),
      );
    return false;
  }

  /** Closes the connections the driver created, at once: the provider has already released its holds. */
  close(): Promise<void> {
    return this.#nodes.close();
  }

  /**
   * The votes that decide the attempt: once a majority granted alike (all fresh, or a majority re-entered) the later
   * answers cannot change the outcome, so `votes` has the nodes still to answer as `pending` and `rest` brings their
   * votes (awaited before a grant is handed out, see `#attempt`).
   */
  async #requestVotes(
    request: DriverAcquireRequest,
    proposal: bigint | null,
    place: QueuePlace | undefined,
  ): Promise<{ votes: AcquireVote[]; rest: Promise<AcquireVote[]> }> {
    const { key, ownerSecret, holder, ttlMs } = request;
    const keys = this.layout.queueScriptKeys(key);
    const args = [ownerSecret, holder, this.#budget.leaseMs(ttlMs), proposal?.toString() ?? "", ...placeArgs(place)];
    const { replies, pending, rest } = await this.#nodes.fanOutUntil(
      async (node) => toAcquireVote(node, await node.run("acquire", QUORUM_ACQUIRE_SCRIPT, keys, args)),
      this.#budget.bound("acquire", ttlMs),
      (answers) => grantedAlike(answers, this.quorum),
    );
    return {
      votes: [...replies.map(replyVote), ...pending.map((node): AcquireVote => ({ node, vote: "pending" }))],
      rest: rest.then((late) => late.map(replyVote)),
    };
  }

  /** One attempt, proposing again at once (at most `MAX_OUTBIDS` times) while outdated proposals cost it the majority. */
  async #tryAcquire(request: DriverAcquireRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult> {
    let result = await this.#attempt(request, place);
    for (let outbids = 0; result === OUTBID && outbids < MAX_OUTBIDS; outbids++) result = await this.#attempt(request, place);
    return result === OUTBID ? { acquired: false, retryAfterMs: this.#jitterMs() } : result;
  }

  /**
   * One round: every node votes on the lock with the same proposed token (a waiter's `place` joins the queue where it
   * is refused). Granted when a majority granted alike and the validity is still positive once every node answered (or
   * timed out); a granted waiter then leaves the queues it is still in.
   */
  async #attempt(request: DriverAcquireRequest, place: QueuePlace | undefined): Promise<DriverAcquireResult | typeof OUTBID> {
    const startedAt = monotonicNow();
    const proposal = this.#settings.fencing ? this.#proposals.next() : null;
    const { votes, rest } = await this.#requestVotes(request, proposal, place);
    const granted = votes.filter((vote): vote is GrantVote => vote.vote === "for");
    if (granted.length < this.quorum) {
      await this.#undo(request, votes, place);
      return this.#refusal(votes, granted.length);
    }
    const fencingToken = this.#grantToken(granted, proposal);
    // Handed out only once the slower nodes voted too: an owner then holds every node it could get, so losing a
    // minority's copies early (clock drift) still leaves it a majority, and no acquire of it is left in flight.
    const everyVote = [...votes.filter((vote) => vote.vote !== "pending"), ...(await rest)];
    if (fencingToken === undefined || !(await this.#stillHeld(request, everyVote))) {
      await this.#undo(request, everyVote, place);
      return { acquired: false, retryAfterMs: this.#jitterMs() };
    }
    if (this.#budget.validityMs(request.ttlMs, startedAt) <= 0) {
      await this.#undo(request, everyVote, place);
      throw new BackendUnavailableError(
        "redlock",
        `acquiring "${request.key}" took ${Math.round(monotonicNow() - startedAt)} ms, leaving no validity of its ${request.ttlMs} ms lease; it was released again (raise ttlMs or check the nodes' latency)`,
      );
    }
    const holdCount = this.#nodes.majorityValue(granted.map((vote) => vote.holdCount)) ?? 1;
    const queuedOn = everyVote.filter((vote) => vote.vote !== "for").map((vote) => vote.node);
    if (place !== undefined && queuedOn.length > 0) await this.#leave(request.key, place, { won: queuedOn });
    return { acquired: true, fencingToken, holdCount, ttlMs: request.ttlMs, grantedAt: startedAt };
  }

  /**
   * A grant that other owners contested (some node voted against or outdated) is checked once more before it is
   * handed out: a majority of the granting nodes must still hold it. With a bare majority, one node that dropped its
   * copy early (clock drift) would leave the owner without a majority from the start. Uncontended grants skip this.
   */
  async #stillHeld(request: DriverAcquireRequest, votes: readonly AcquireVote[]): Promise<boolean> {
    if (votes.every((vote) => vote.vote === "for" || vote.vote === "error")) return true;
    const granting = votes.filter((vote) => vote.vote === "for").map((vote) => vote.node);
    const args = [request.ownerSecret, this.#budget.leaseMs(request.ttlMs)];
    const keys = [this.layout.lockKey(request.key)];
    const replies = await this.#nodes.fanOut((node) => node.run("acquire", RENEW_SCRIPT, keys, args), this.#budget.bound("acquire", request.ttlMs), granting);
    return replies.filter(heldHere).length >= this.quorum;
  }

  /**
   * The token of a majority grant: a fresh one gets the proposal, which every granting node stored; a re-entry keeps
   * its hold's token, which is only one when a majority already held the key for this owner (undefined otherwise:
   * the earlier hold lost its majority). Null without fencing.
   */
  #grantToken(granted: readonly GrantVote[], proposal: bigint | null): bigint | null | undefined {
    const reentered = granted.filter((vote) => vote.holdCount > 1);
    if (reentered.length === 0) {
      if (proposal !== null) this.#proposals.raiseAbove(proposal);
      return proposal;
    }
    if (reentered.length < this.quorum) return undefined;
    return this.#settings.fencing ? (maxToken(reentered.map((vote) => vote.token)) ?? null) : null;
  }

  /**
   * Drops this attempt's level on every node that did not refuse, including those whose answer was lost (one connection
   * keeps the order); a waiter keeps its place in those nodes' queues.
   */
  async #undo(request: DriverAcquireRequest, votes: readonly AcquireVote[], place: QueuePlace | undefined): Promise<void> {
    const targets = votes.filter((vote) => vote.vote !== "against" && vote.vote !== "outdated").map((vote) => vote.node);
    if (targets.length === 0) return;
    const args = [request.ownerSecret, this.layout.releaseChannel(request.key), ...placeArgs(place)];
    const bound = this.#budget.bound("release");
    await this.#nodes.fanOut((node) => node.run("release", QUORUM_RELEASE_SCRIPT, this.layout.queueScriptKeys(request.key), args), bound, targets);
  }

  /**
   * Takes `place` out of the queues (best effort: an entry left behind expires with its lease): of every node when the
   * waiter gives up, announcing the next waiter where the lock is free; only of the nodes that refused it when it `won`
   * on the others, silently, since waking the next waiter now would only send an attempt that the winner refuses.
   */
  async #leave(key: string, place: QueuePlace, { won }: { won?: readonly RedlockNode[] } = {}): Promise<void> {
    const args = [place.id, won === undefined ? this.layout.releaseChannel(key) : ""];
    await this.#nodes.fanOut(
      (node) => node.run("leave", LEAVE_QUORUM_QUEUE_SCRIPT, this.layout.queueScriptKeys(key), args),
      this.#budget.bound("release"),
      won,
    );
  }

  /** Hears every node announce releases and name its first waiter (see `QuorumReleaseWatch` for when `place` wakes). */
  async #watchTurn(key: string, place: QueuePlace, lastAttemptAt: () => number): Promise<ReleaseWatch> {
    const watch = new QuorumReleaseWatch({ waiterId: place.id, needed: this.quorum, lastAttemptAt });
    const channel = this.layout.releaseChannel(key);
    const replies = await this.#nodes.fanOut((node) => node.listen(channel, (message) => watch.hear(node.name, message)));
    const stops = replies.flatMap((reply) => (reply.ok ? [reply.value] : []));
    watch.subscribed(stops, stops.length === replies.length);
    return watch;
  }

  /**
   * A failed attempt: too many nodes down → QUORUM_NOT_REACHED; held (or promised to a waiter) by a majority → wait for
   * that lease (or turn); outdated proposals that cost the majority → propose above the nodes' counters at once; a split
   * vote → jittered retry.
   */
  #refusal(votes: readonly AcquireVote[], granted: number): DriverRefused | typeof OUTBID {
    const outcomes = votes.map(acquireOutcome);
    if (this.#nodes.unreachable(outcomes.filter((o) => o.vote === "error").length)) throw new QuorumNotReachedError("acquire", this.quorum, outcomes);
    const leases = votes.flatMap((vote) => (vote.vote === "against" ? [vote.leftMs] : []));
    if (leases.length >= this.quorum) return { acquired: false, retryAfterMs: Math.max(1, ...leases) };
    const outdated = votes.flatMap((vote) => (vote.vote === "outdated" ? [vote.counter] : []));
    for (const counter of outdated) this.#proposals.raiseAbove(counter);
    if (outdated.length > 0 && granted + outdated.length >= this.quorum) return OUTBID;
    return { acquired: false, retryAfterMs: this.#jitterMs() };
  }

  async #renewBatch(renewals: readonly DriverRenewal[], batch: readonly number[], outcomes: NodeOutcome[][]): Promise<void> {
    const keys = batch.map((i) => this.layout.lockKey((renewals[i] as DriverRenewal).key));
    const args = batch.flatMap((i) => [(renewals[i] as DriverRenewal).ownerSecret, this.#budget.leaseMs((renewals[i] as DriverRenewal).ttlMs)]);
    const bound = this.#budget.bound("renew", Math.min(...batch.map((i) => (renewals[i] as DriverRenewal).ttlMs)));
    const replies = await this.#nodes.fanOut((node) => node.run("renew", RENEW_SCRIPT, keys, args), bound);
    for (const reply of replies) {
      batch.forEach((index, j) => {
        const vote = reply.ok ? ((reply.value as number[])[j] === 1 ? "for" : "against") : "error";
        (outcomes[index] as NodeOutcome[]).push(toOutcome(reply.node, vote, reply.ok ? undefined : reply.error));
      });
    }
  }

  /** Index groups of `count` renewals, at most `renewBatchSize` long. */
  #batches(count: number): number[][] {
    const size = this.#settings.renewBatchSize;
    return Array.from({ length: Math.ceil(count / size) }, (_, b) => Array.from({ length: Math.min(size, count - b * size) }, (_, i) => b * size + i));
  }

  #runEverywhere(operation: string, script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<NodeReply<unknown>[]> {
    return this.#nodes.fanOut((node) => node.run(operation, script, keys, args), this.#budget.bound(operation));
  }

  #jitterMs(): number {
    return 1 + Math.floor(Math.random() * this.#settings.retryJitterMs);
  }
}

/** The waiter arguments of the acquire and give-back (undo) scripts: id, ticket and lease, or one "" for an attempt that does not wait. */
function placeArgs(place: QueuePlace | undefined): Array<string | number> {
  return place === undefined ? [""] : [place.id, place.ticket, place.leaseMs];
}

/** True when the node ran the script and its reply starts with 1: it still held the lock for this owner (release, renew). */
function heldHere(reply: NodeReply<unknown>): reply is Extract<NodeReply<unknown>, { ok: true }> {
  return reply.ok && (reply.value as number[])[0] === 1;
}

function replyVote(reply: NodeReply<AcquireVote>): AcquireVote {
  return reply.ok ? reply.value : { node: reply.node, vote: "error", error: reply.error };
}

function toAcquireVote(node: RedlockNode, value: unknown): AcquireVote {
  const answer = value as unknown[];
  if (answer[0] === 1) return { node, vote: "for", token: parseStoredToken(answer[1]), holdCount: Number(answer[2]) };
  if (answer[0] === -1) return { node, vote: "outdated", counter: BigInt(String(answer[1])) };
  return { node, vote: "against", leftMs: Number(answer[1]) };
}

/** True when a majority granted fresh with no re-entry among the answers, or a majority re-entered: the rest cannot change the outcome. */
function grantedAlike(answers: readonly NodeReply<AcquireVote>[], quorum: number): boolean {
  let fresh = 0;
  let reentered = 0;
  for (const answer of answers) {
    if (!answer.ok || answer.value.vote !== "for") continue;
    if (answer.value.holdCount > 1) reentered += 1;
    else fresh += 1;
  }
  return reentered >= quorum || (fresh >= quorum && reentered === 0);
}

/** A refused attempt's vote as reported; `pending` only follows a majority grant, so it is reported as no answer. */
function acquireOutcome(vote: AcquireVote): NodeOutcome {
  if (vote.vote === "pending") return toOutcome(vote.node, "error", new Error("no answer yet"));
  if (vote.vote === "outdated") return toOutcome(vote.node, "against");
  return toOutcome(vote.node, vote.vote, vote.vote === "error" ? vote.error : undefined);
}

function replyOutcome(reply: NodeReply<unknown>, isFor: (value: unknown) => boolean): NodeOutcome {
  if (!reply.ok) return toOutcome(reply.node, "error", reply.error);
  return toOutcome(reply.node, isFor(reply.value) ? "for" : "against");
}
