import { randomBytes } from "node:crypto";
import type { DriverGranted, ReleaseWatch } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow, stampGrant } from "@distlock/core/internal";
import { queueRefreshMs } from "@distlock/redis/internal";
import { wallClockMicros } from "../fencing/token-proposals.js";

/**
 * A waiter's place in every node's queue: its id, its ticket (this client's clock when it began waiting: every node
 * orders its waiters by ticket, so all agree on who is first) and how long an entry lasts without a refresh.
 */
export interface QueuePlace {
  readonly id: string;
  readonly ticket: string;
  readonly leaseMs: number;
}

/** What a queued wait needs from the driver, for one request. */
export interface QuorumQueueAccess {
  /** One attempt that queues (or refreshes) `place` on the nodes that refuse it. */
  attempt(place: QueuePlace): Promise<DriverAcquireResult>;
  /** Hears the nodes announce that `place` is first; only announcements after `lastAttemptAt()` wake it. */
  watchTurn(place: QueuePlace, lastAttemptAt: () => number): Promise<ReleaseWatch>;
  /** Takes `place` out of every queue; best effort. */
  leave(place: QueuePlace): Promise<void>;
  readonly waiterLeaseMs: number;
}

/**
 * Waits in the nodes' queues until a majority of them announce this waiter's turn (a release there found it first),
 * then attempts again; the place is refreshed well before it expires and when the holder's lease may have ended
 * unreleased. On any failure or abort the waiter leaves the queues (bounded by the node timeout) and then rejects.
 */
export async function waitInQuorumLine(queue: QuorumQueueAccess, ttlMs: number, signal: AbortSignal): Promise<DriverGranted> {
  const place = { id: randomBytes(12).toString("base64url"), ticket: String(wallClockMicros()), leaseMs: queue.waiterLeaseMs };
  let attemptAt = monotonicNow();
  const watch = await queue.watchTurn(place, () => attemptAt);
  const refreshMs = queueRefreshMs(place.leaseMs, ttlMs);
  try {
    for (;;) {
      signal.throwIfAborted();
      attemptAt = monotonicNow();
      const result = await queue.attempt(place);
      if (result.acquired) return stampGrant(result, attemptAt);
      await watch.next(Math.min(Math.max(1, result.retryAfterMs), refreshMs), signal);
    }
  } catch (error) {
    // Awaited, so that no entry of this waiter outlives the rejection and holds up the ones behind it.
    await queue.leave(place).catch(() => undefined);
    throw error;
  } finally {
    watch.close();
  }
}
