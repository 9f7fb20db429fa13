import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import type { ScriptCall } from "../connection/redis-calls.js";
import type { CohortLines, LocalWaiter } from "../waiting/cohort-lines.js";
import { type LineRefusal, lineRefusal } from "../waiting/wait-in-server-line.js";

/**
 * What the acquire script answers: a fresh grant's token, a refusal's remaining lease, a queued refusal's {0, holder's
 * token, lease left}, or {1|2, token, holdCount, ttl left}.
 */
export type AcquireReply = string | number | [0, string, number] | [1 | 2, string, number, number];

/** What the release script answers: the hold count left, -1 when not held, or {token, ttl ms, jumped 1|0, waiters left} for a local pass. */
export type ReleaseReply = number | [string, number, number, number];

/** A release that offered the lock to a waiter of this process: the key, that waiter, and when it was sent. */
export interface LocalOffer {
  readonly key: string;
  readonly waiter: LocalWaiter;
  readonly sentAt: number;
}

/** An acquire attempt's call, and when it was sent (a grant's lease started after it). */
export interface AttemptCall extends ScriptCall<DriverAcquireRequest> {
  readonly sentAt: number;
}

export const NOT_HELD = Object.freeze({ held: false, holdCount: 0 });
export const FREED = Object.freeze({ held: true, holdCount: 0 });

/** The acquire script's reply as a grant or a refusal; a refusal without a lease to wait out retries after `fallbackRetryMs`. */
export function attemptResult(reply: AcquireReply, request: DriverAcquireRequest, fallbackRetryMs: number): DriverGranted | LineRefusal {
  if (typeof reply === "number") return { acquired: false, retryAfterMs: reply >= 0 ? reply : fallbackRetryMs };
  if (typeof reply === "string") return { acquired: true, fencingToken: BigInt(reply), holdCount: 1, ttlMs: request.ttlMs };
  if (reply[0] === 0) return lineRefusal(reply[2] >= 0 ? reply[2] : fallbackRetryMs, reply[1]);
  return { acquired: true, fencingToken: BigInt(reply[1]), holdCount: Number(reply[2]), ttlMs: Number(reply[3]) };
}

/** Whether an acquire reply granted the lock (one answered too late is given back). */
export function isGrantReply(reply: AcquireReply): boolean {
  return typeof reply === "string" || (typeof reply !== "number" && reply[0] !== 0);
}

/** The release script's reply as the driver's answer; a local pass hands the offered waiter its grant. */
export function releaseResult(reply: ReleaseReply, request: LocalOffer | string, lines: CohortLines | undefined): { held: boolean; holdCount: number } {
  if (typeof reply !== "number") {
    const offer = request as LocalOffer;
    const [token, ttlMs, jumped, queued] = reply;
    lines?.passed(offer.key, jumped === 1);
    offer.waiter.take({ fencingToken: BigInt(token), ttlMs: Number(ttlMs), grantedAt: offer.sentAt, keepsLease: false, queued: Number(queued) });
    return FREED;
  }
  if (reply === 0) lines?.passed(typeof request === "string" ? request : request.key, false);
  return releaseOutcome(reply);
}

/** A release script's hold count left (-1 when the owner did not hold the key) as the release's outcome. */
export function releaseOutcome(countLeft: number): { held: boolean; holdCount: number } {
  return countLeft === 0 ? FREED : countLeft < 0 ? NOT_HELD : { held: true, holdCount: countLeft };
}
