import type { HistoryEvent } from "../history/history-event.js";
import { type CheckOptions, DEFAULT_CHECK_OPTIONS } from "./check-options.js";
import { heldAtOnce } from "./held-at-once.js";
import { collectHolds, type HoldRecord, sinceOrigin } from "./hold-records.js";
import { findStarvedWaiters } from "./starved-waiters.js";
import type { Violation } from "./violation.js";

/**
 * Checks one key's history (a lock's, or with `options.semaphore` a counting semaphore's) for the violations listed in
 * {@link Violation}: mutual exclusion (at most the semaphore's permits) on the holders' own validity deadlines, fencing
 * on the resource's accepted writes and the grants' tokens, lost-lock signalling, and liveness outside outages.
 * Returns every violation found (an empty list for a clean history).
 */
export function checkHistory(events: readonly HistoryEvent[], options: CheckOptions = {}): Violation[] {
  const settings = { ...DEFAULT_CHECK_OPTIONS, ...options };
  if (events.length === 0) return [];
  const history = [...events].sort((a, b) => a.at - b.at);
  const origin = history[0]?.at ?? 0;
  const holds = collectHolds(history);
  const semaphore = options.semaphore !== undefined;
  return [
    ...heldAtOnce(holds.values(), options.semaphore?.permits ?? 1, settings.clockEpsilonMs, origin).overlaps,
    ...findFencingViolations(history),
    ...(semaphore ? findReusedGrantTokens(holds) : []),
    ...findTokenOrderViolations(holds, settings.clockEpsilonMs, semaphore ? "acquired" : "released"),
    ...findUnsignalledLosses(history, holds, settings.clockEpsilonMs, origin),
    ...(semaphore ? findActsAfterLoss(history, holds, settings.clockEpsilonMs, origin) : []),
    ...findStarvedWaiters(history, settings.livenessBoundMs, settings.outageGraceMs, origin),
  ];
}

/** The most permits a semaphore's holders believed they held at one instant (see `heldAtOnce`). */
export function peakPermitsHeld(events: readonly HistoryEvent[], options: Pick<CheckOptions, "clockEpsilonMs"> = {}): number {
  const history = [...events].sort((a, b) => a.at - b.at);
  const epsilon = options.clockEpsilonMs ?? DEFAULT_CHECK_OPTIONS.clockEpsilonMs;
  return heldAtOnce(collectHolds(history).values(), Number.POSITIVE_INFINITY, epsilon, history[0]?.at ?? 0).peak;
}

function findFencingViolations(history: readonly HistoryEvent[]): Violation[] {
  const violations: Violation[] = [];
  const accepted = history.flatMap((event) => (event.type === "write" && event.accepted ? [event] : [])).sort((a, b) => a.seq - b.seq);
  let highest: { token: bigint; hold: string; seq: number } | undefined;
  for (const write of accepted) {
    const token = BigInt(write.token);
    if (highest !== undefined && token < highest.token) {
      violations.push({
        kind: "token-regression",
        detail: `write #${write.seq} of ${write.hold} with token ${token} was accepted after write #${highest.seq} of ${highest.hold} with token ${highest.token}`,
      });
      continue;
    }
    if (highest !== undefined && token === highest.token && write.hold !== highest.hold) {
      violations.push({ kind: "token-reuse", detail: `${highest.hold} and ${write.hold} both wrote with token ${token} and both writes were accepted` });
    }
    highest = { token, hold: write.hold, seq: write.seq };
  }
  return violations;
}

/** A semaphore's grants, even concurrent ones, each get a token of their own. */
function findReusedGrantTokens(holds: Map<string, HoldRecord>): Violation[] {
  const first = new Map<bigint, HoldRecord>();
  const violations: Violation[] = [];
  for (const record of holds.values()) {
    const earlier = first.get(record.token);
    if (earlier === undefined) first.set(record.token, record);
    else violations.push({ kind: "token-reuse", detail: `${earlier.hold} and ${record.hold} were both granted token ${record.token}` });
  }
  return violations;
}

/**
 * A hold asked for after another hold was `released` (a lock) or `acquired` (a semaphore, whose holders overlap) has a
 * larger token than it.
 */
function findTokenOrderViolations(holds: Map<string, HoldRecord>, epsilon: number, after: "released" | "acquired"): Violation[] {
  const endOf = (record: HoldRecord) => (after === "released" ? record.releasedAt : record.acquiredAt);
  const violations: Violation[] = [];
  const ended = [...holds.values()].filter((record) => endOf(record) !== undefined).sort((a, b) => (endOf(a) ?? 0) - (endOf(b) ?? 0));
  const byAsk = [...holds.values()].sort((a, b) => a.askedAt - b.askedAt);
  let highest: HoldRecord | undefined;
  let next = 0;
  for (const later of byAsk) {
    for (; next < ended.length && (endOf(ended[next] as HoldRecord) ?? 0) < later.askedAt - epsilon; next++) {
      const candidate = ended[next] as HoldRecord;
      if (highest === undefined || candidate.token > highest.token) highest = candidate;
    }
    if (highest !== undefined && highest !== later && later.token <= highest.token) {
      violations.push({
        kind: "token-order",
        detail: `${later.hold} asked for the key after ${highest.hold} (token ${highest.token}) was ${after}, yet got token ${later.token}`,
      });
    }
  }
  return violations;
}

function findUnsignalledLosses(history: readonly HistoryEvent[], holds: Map<string, HoldRecord>, epsilon: number, origin: number): Violation[] {
  const violations: Violation[] = [];
  for (const event of history) {
    // A holder acts only while its signal has not aborted, so an act past its deadline was not signalled in time.
    const unsignalled = (event.type === "write" && !event.signalAborted) || event.type === "act";
    if (unsignalled && event.at > event.validUntil + epsilon) {
      const what = event.type === "write" ? `wrote with token ${event.token}` : `acted with token ${event.token}`;
      const outcome = event.type === "write" ? ` (write ${event.accepted ? "accepted" : "rejected"})` : "";
      violations.push({
        kind: "unsignalled-stale-write",
        detail: `${event.hold} ${what} at ${sinceOrigin(event.at, origin)}, ${(event.at - event.validUntil).toFixed(1)}ms past its validity, and its signal had not aborted${outcome}`,
      });
    }
    if (event.type === "cs-end" && event.at > event.validUntil + epsilon) {
      const lostAt = holds.get(event.hold)?.lostAt;
      if (lostAt === undefined || lostAt > event.at + epsilon) {
        violations.push({
          kind: "unsignalled-loss",
          detail: `${event.hold} ended its critical section at ${sinceOrigin(event.at, origin)}, ${(event.at - event.validUntil).toFixed(1)}ms past its validity, without LOCK_LOST`,
        });
      }
    }
  }
  return violations;
}

function findActsAfterLoss(history: readonly HistoryEvent[], holds: Map<string, HoldRecord>, epsilon: number, origin: number): Violation[] {
  return history.flatMap((event) => {
    const lostAt = event.type === "act" ? holds.get(event.hold)?.lostAt : undefined;
    if (event.type !== "act" || lostAt === undefined || event.at <= lostAt + epsilon) return [];
    return [
      {
        kind: "act-after-loss" as const,
        detail: `${event.hold} acted with token ${event.token} at ${sinceOrigin(event.at, origin)}, after its signal told it at ${sinceOrigin(lostAt, origin)} that its permits were lost`,
      },
    ];
  });
}
