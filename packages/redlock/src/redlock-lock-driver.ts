import {
  BackendUnavailableError,
  type DriverAcquireRequest,
  type DriverAcquireResult,
  type DriverRefused,
  type DriverRenewal,
  type LockCapabilities,
  type LockDriver,
  type LockState,
  monotonicNow,
  type NodeOutcome,
  QuorumNotReachedError,
  type ReleaseWatch,
} from "@distlock/core";
import { ACQUIRE_SCRIPT, FORCE_RELEASE_SCRIPT, INSPECT_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, RedisKeyLayout } from "@distlock/redis";
import { CONFIRM_FENCE_SCRIPT } from "./fencing/confirm-fence-script.js";
import { maxConfirmed, maxToken, parseStoredToken, type StoredToken } from "./fencing/stored-token.js";
import type { RedlockNode } from "./nodes/redlock-node.js";
import type { RedlockLockSettings } from "./options/redlock-lock-provider-options.js";
import { LeaseBudget } from "./quorum/lease-budget.js";
import { type NodeReply, type NodeSet, toOutcome } from "./quorum/node-set.js";
import { AttemptLog } from "./waiting/attempt-log.js";
import { QuorumReleaseWatch } from "./waiting/quorum-release-watch.js";

/** What a `RedlockLockDriver` runs on. */
export interface RedlockLockDriverConfig {
  readonly nodes: NodeSet;
  readonly settings: RedlockLockSettings;
}

/** A lease this short cannot survive two round trips and the drift margin. */
const MIN_TTL_MS = 50;

/** A node that granted (or re-entered) the lock. */
type GrantVote = { readonly node: RedlockNode; readonly vote: "for"; readonly token: StoredToken; readonly holdCount: number };

/** One node's answer to the acquire script; `pending` when a majority had granted before it answered. */
type AcquireVote =
  | GrantVote
  | { readonly node: RedlockNode; readonly vote: "against"; readonly leftMs: number }
  | { readonly node: RedlockNode; readonly vote: "error"; readonly error: unknown }
  | { readonly node: RedlockNode; readonly vote: "pending" };

/**
 * Redlock over independent Redis masters, reusing the Redis backend's scripts on each node: a key is held
 * while a majority of nodes hold it and the validity (lease − elapsed − drift) is positive.
 */
export class RedlockLockDriver implements LockDriver {
  readonly backend = "redlock";
  readonly capabilities: LockCapabilities;
  readonly layout: RedisKeyLayout;
  readonly #nodes: NodeSet;
  readonly #settings: RedlockLockSettings;
  readonly #budget: LeaseBudget;
  /** How the latest attempt on each waited-on key went: when it began, and whether it split the vote. */
  readonly #attempts = new AttemptLog();

  constructor(config: RedlockLockDriverConfig) {
    this.#nodes = config.nodes;
    this.#settings = Object.freeze({ ...config.settings });
    this.#budget = new LeaseBudget(this.#settings);
    this.layout = new RedisKeyLayout(this.#settings.prefix);
    this.capabilities = Object.freeze({ fencing: this.#settings.fencing, fifo: false, serverClock: false, minTtlMs: MIN_TTL_MS, ttlGranularityMs: 1 });
  }

  /** The node set's majority size. */
  get quorum(): number {
    return this.#nodes.quorum;
  }

  async tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const startedAt = monotonicNow();
    this.#attempts.began(request.key, startedAt);
    const { votes: decided, rest } = await this.#requestVotes(request);
    const granted = decided.filter((vote): vote is GrantVote => vote.vote === "for");
    if (granted.length < this.quorum) {
      await this.#undo(request, decided);
      return this.#refusal(request.key, decided.map(acquireOutcome), decided);
    }
    const reentered = granted.filter((vote) => vote.holdCount > 1);
    // The token is confirmed while the slower nodes' votes are still coming in; a grant is handed out only once all are in.
    const [fencingToken, late] = await Promise.all([
      reentered.length === 0 ? this.#confirmFreshToken(request, decided, granted) : this.#reenteredToken(reentered),
      rest,
    ]);
    const votes = [...decided.filter((vote) => vote.vote !== "pending"), ...late];
    if (fencingToken === undefined) {
      await this.#undo(request, votes);
      this.#attempts.splitVote(request.key);
      return { acquired: false, retryAfterMs: this.#jitterMs() };
    }
    if (this.#budget.validityMs(request.ttlMs, startedAt) <= 0) {
      await this.#undo(request, votes);
      throw new BackendUnavailableError(
        "redlock",
        `acquiring "${request.key}" took ${Math.round(monotonicNow() - startedAt)} ms, leaving no validity of its ${request.ttlMs} ms lease; it was released again (raise ttlMs or check the nodes' latency)`,
      );
    }
    const holdCount = this.#nodes.majorityValue(granted.map((vote) => vote.holdCount)) ?? 1;
    return { acquired: true, fencingToken, holdCount, ttlMs: request.ttlMs, grantedAt: startedAt };
  }

  async watchReleases(key: string): Promise<ReleaseWatch> {
    const channel = this.layout.releaseChannel(key);
    const replies = await this.#nodes.fanOut((node) => node.watch(channel));
    const sources = replies.flatMap((reply) => (reply.ok ? [{ watch: reply.value, isClosed: () => reply.node.closed }] : []));
    const unsubscribed = replies.length - sources.length;
    const { lastAttemptAt, takeSplitVote, unwatch } = this.#attempts.watch(key);
    return new QuorumReleaseWatch(sources, {
      needed: Math.max(1, this.quorum - unsubscribed),
      incomplete: unsubscribed > 0,
      lastAttemptAt,
      takeSplitVote,
      onClose: unwatch,
    });
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
    const replies = await this.#runEverywhere("release", RELEASE_SCRIPT, [this.layout.lockKey(key)], [ownerSecret, this.layout.releaseChannel(key)]);
    const counts = replies.flatMap((reply) => (reply.ok && (reply.value as number[])[0] === 1 ? [Number((reply.value as number[])[1])] : []));
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
    const replies = await this.#runEverywhere("inspect", INSPECT_SCRIPT, [this.layout.lockKey(key)], []);
    const byHolder = new Map<string, Array<[string, number, string, number]>>();
    for (const reply of replies) {
      if (!reply.ok || (reply.value as unknown[])[0] !== 1) continue;
      const [, holder, holdCount, token, leftMs] = reply.value as [number, string, number, string, number];
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), [holder, Number(holdCount), token, Number(leftMs)]]);
    }
    for (const [holder, states] of byHolder) {
      if (states.length < this.quorum) continue;
      const fencingToken = this.#settings.fencing ? (maxConfirmed(states.map(([, , token]) => parseStoredToken(token))) ?? null) : null;
      const holdCount = this.#nodes.majorityValue(states.map(([, count]) => count)) ?? 1;
      const ttlRemainingMs = Math.max(0, this.#nodes.majorityValue(states.map(([, , , left]) => left)) ?? 0);
      return { key, holder, holdCount, fencingToken, ttlRemainingMs };
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
    const replies = await this.#runEverywhere("forceRelease", FORCE_RELEASE_SCRIPT, [this.layout.lockKey(key)], [this.layout.releaseChannel(key)]);
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
   * Every node's vote, except that the decision does not wait once a majority granted alike (all fresh, or
   * a majority re-entered): `votes` then has the nodes still to answer as `pending`, and `rest` brings their votes.
   */
  async #requestVotes(request: DriverAcquireRequest): Promise<{ votes: AcquireVote[]; rest: Promise<AcquireVote[]> }> {
    const { key, ownerSecret, holder, ttlMs } = request;
    const keys = [this.layout.lockKey(key), this.layout.fenceKey(key)];
    const args = [ownerSecret, holder, this.#budget.leaseMs(ttlMs)];
    const { replies, pending, rest } = await this.#nodes.fanOutUntil(
      async (node) => toAcquireVote(node, await node.run("acquire", ACQUIRE_SCRIPT, keys, args)),
      this.#budget.bound("acquire", ttlMs),
      (answers) => grantedAlike(answers, this.quorum),
    );
    return {
      votes: [...replies.map(replyVote), ...pending.map((node): AcquireVote => ({ node, vote: "pending" }))],
      rest: rest.then((late) => late.map(replyVote)),
    };
  }

  /**
   * The token of a fresh acquisition: the largest counter value the granting nodes issued, written back
   * (counter raised, token stored as confirmed) on a majority of nodes that still hold the lock for this
   * owner. It asks a majority of the granting nodes first and the others only if one of those failed.
   * Null without fencing; undefined when fewer than a majority confirmed (the attempt must be undone).
   */
  async #confirmFreshToken(request: DriverAcquireRequest, votes: readonly AcquireVote[], granted: readonly GrantVote[]): Promise<bigint | null | undefined> {
    if (!this.#settings.fencing) return null;
    const token = maxToken(granted.map((vote) => vote.token)) as bigint;
    const keys = [this.layout.lockKey(request.key), this.layout.fenceKey(request.key)];
    const args = [request.ownerSecret, token.toString()];
    const bound = this.#budget.bound("acquire", request.ttlMs);
    const confirm = (nodes: readonly RedlockNode[]) => this.#nodes.fanOut((node) => node.run("acquire", CONFIRM_FENCE_SCRIPT, keys, args), bound, nodes);
    // Nodes whose acquire answer was lost or is still due may hold the lock as well, so they are the fallback's last candidates.
    const targets = [...granted, ...votes.filter((vote) => vote.vote === "error" || vote.vote === "pending")].map((vote) => vote.node);
    let replies = await confirm(targets.slice(0, this.quorum));
    const isConfirmed = (reply: NodeReply<unknown>) => reply.ok && reply.value === 1;
    if (!replies.every(isConfirmed)) replies = [...replies, ...(await confirm(targets.slice(this.quorum)))];
    if (replies.filter(isConfirmed).length >= this.quorum) return token;
    const asked = new Set(replies.map((reply) => reply.node));
    const errors = replies.filter((reply) => !reply.ok).length + votes.filter((vote) => vote.vote === "error" && !asked.has(vote.node)).length;
    if (this.#nodes.unreachable(errors)) {
      await this.#undo(request, votes);
      throw new QuorumNotReachedError(
        "acquire",
        this.quorum,
        replies.map((reply) => replyOutcome(reply, (value) => value === 1)),
      );
    }
    return undefined;
  }

  /**
   * The token of a re-entry: the confirmed token stored with the hold. A re-entry is only one when a majority
   * of nodes already held the key for this owner; otherwise (undefined) the earlier hold lost its majority.
   */
  #reenteredToken(reentered: readonly GrantVote[]): bigint | null | undefined {
    if (reentered.length < this.quorum) return undefined;
    if (!this.#settings.fencing) return null;
    return maxConfirmed(reentered.map((vote) => vote.token));
  }

  /** Drops this attempt's level on every node that did not refuse, including those whose answer was lost (one connection keeps the order). */
  async #undo(request: DriverAcquireRequest, votes: readonly AcquireVote[]): Promise<void> {
    const targets = votes.filter((vote) => vote.vote !== "against").map((vote) => vote.node);
    if (targets.length === 0) return;
    const args = [request.ownerSecret, this.layout.releaseChannel(request.key)];
    const bound = this.#budget.bound("release");
    await this.#nodes.fanOut((node) => node.run("release", RELEASE_SCRIPT, [this.layout.lockKey(request.key)], args), bound, targets);
  }

  /** A failed attempt: too many nodes down → QUORUM_NOT_REACHED; held by a majority → wait for its lease; a split vote → jittered retry. */
  #refusal(key: string, outcomes: readonly NodeOutcome[], votes: readonly AcquireVote[]): DriverRefused {
    if (this.#nodes.unreachable(outcomes.filter((o) => o.vote === "error").length)) throw new QuorumNotReachedError("acquire", this.quorum, outcomes);
    const leases = votes.flatMap((vote) => (vote.vote === "against" ? [vote.leftMs] : []));
    if (leases.length >= this.quorum) return { acquired: false, retryAfterMs: Math.max(1, ...leases) };
    this.#attempts.splitVote(key);
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

  #runEverywhere(operation: string, script: typeof RELEASE_SCRIPT, keys: readonly string[], args: readonly string[]): Promise<NodeReply<unknown>[]> {
    return this.#nodes.fanOut((node) => node.run(operation, script, keys, args), this.#budget.bound(operation));
  }

  #jitterMs(): number {
    return 1 + Math.floor(Math.random() * this.#settings.retryJitterMs);
  }
}

function replyVote(reply: NodeReply<AcquireVote>): AcquireVote {
  return reply.ok ? reply.value : { node: reply.node, vote: "error", error: reply.error };
}

function toAcquireVote(node: RedlockNode, value: unknown): AcquireVote {
  const answer = value as unknown[];
  if (answer[0] !== 1) return { node, vote: "against", leftMs: Number(answer[1]) };
  return { node, vote: "for", token: parseStoredToken(answer[1]), holdCount: Number(answer[2]) };
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
  return toOutcome(vote.node, vote.vote, vote.vote === "error" ? vote.error : undefined);
}

function replyOutcome(reply: NodeReply<unknown>, isFor: (value: unknown) => boolean): NodeOutcome {
  if (!reply.ok) return toOutcome(reply.node, "error", reply.error);
  return toOutcome(reply.node, isFor(reply.value) ? "for" : "against");
}
