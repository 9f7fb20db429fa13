import { randomBytes } from "node:crypto";
import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { Latch, monotonicNow } from "@distlock/core/internal";
import type { LocalWaiter } from "./cohort-lines.js";
import { type HandOffMessage, parseHandOffMessage } from "./hand-off-message.js";
import type { ChannelListener } from "./release-subscriber.js";

/** What a queued wait needs from the driver. */
export interface ServerLineAccess {
  /** One queue-aware attempt that queues (or refreshes) `waiterId` when refused. */
  attempt(request: DriverAcquireRequest, waiterId: string): Promise<DriverAcquireResult>;
  /** Drops the waiter's entry and gives back a lock handed to it; best effort. */
  leave(request: DriverAcquireRequest, waiterId: string): Promise<unknown>;
  /** Hears the key's release channel (or what concerns `waiterId`) from the moment this resolves. */
  listen(key: string, listener: ChannelListener, waiterId: string): Promise<() => void>;
  /** A waiter id no other waiter on the server has; 12 random bytes when absent. */
  readonly newWaiterId?: () => string;
  /** How long a queue entry lives on the server without a refresh. */
  readonly waiterLeaseMs: number;
  /** Take hand-offs only through an attempt (e.g. so that it can wait for replicas), not from the message alone. */
  readonly claimHandOffs: boolean;
  /** Puts a waiter that is in the server's line into this process's line, where a release here may pass it the lock; undefined when releases here pass nothing. */
  readonly joinLocalLine?: (key: string, waiter: LocalWaiter) => () => void;
}

/** A grant a queued wait ends with, and how many waiters the server's queue held after it (0 when unknown). */
export interface ServerLineGrant extends DriverGranted {
  readonly queued: number;
}

/**
 * Waits in the key's server-side queue until a release hands the lock over (FIFO, no polling).
 * The entry is refreshed well before it expires and whenever the holder's lease may have ended unreleased;
 * a hand-off announced on the channel is taken without another round trip. On any failure or abort the
 * waiter leaves the queue (giving back a lock that reached it too late; bounded by the command timeout) and then rejects.
 */
export async function waitInServerLine(queue: ServerLineAccess, request: DriverAcquireRequest, signal: AbortSignal): Promise<ServerLineGrant> {
  const waiterId = queue.newWaiterId?.() ?? randomBytes(12).toString("base64url");
  let handOff: HandOffMessage | undefined;
  // Spent by the pause it ends: a message that comes during an attempt ends the next pause at once, so a hand-off
  // this waiter must claim through an attempt is not left waiting for the refresh.
  const wake = new Latch("spent-by-wait");
  /** Set when a release in this process passed the lock here: the earliest moment its lease may have started. */
  let passedAt: number | undefined;
  /** Set with `passedAt` when the pass handed on a lease already running: its start bounds the lease, not this wait. */
  let keepsLease = false;
  /** Set once the wait is failing: a pass that comes now is refused. */
  let stopped = false;
  let leaveLocalLine: (() => void) | undefined;
  const localWaiter: LocalWaiter = {
    waiterId,
    ownerSecret: request.ownerSecret,
    ttlMs: request.ttlMs,
    freshOwner: request.freshOwner === true,
    take(pass) {
      if (handOff !== undefined || stopped || signal.aborted) return false;
      handOff = { waiterId, fencingToken: pass.fencingToken, ttlMs: pass.ttlMs, queued: pass.queued };
      passedAt = pass.grantedAt;
      keepsLease = pass.keepsLease;
      wake.open();
      return true;
    },
  };
  /** Hand-off messages taken so far: one taken while an attempt was in flight may be older than that attempt. */
  let handOffsHeard = 0;
  const stopListening = await queue.listen(
    request.key,
    (message) => {
      const parsed = message === null ? undefined : parseHandOffMessage(message);
      if (message !== null && parsed?.waiterId !== waiterId) return;
      if (parsed !== undefined && !queue.claimHandOffs && passedAt === undefined) {
        handOff = parsed;
        handOffsHeard++;
      }
      wake.open();
    },
    waiterId,
  );
  const refreshMs = queueRefreshMs(queue.waiterLeaseMs, request.ttlMs);
  try {
    for (;;) {
      signal.throwIfAborted();
      const sentAt = monotonicNow();
      const heardBefore = handOffsHeard;
      const result = await queue.attempt(request, waiterId);
      if (result.acquired) {
        return { acquired: true, fencingToken: result.fencingToken, holdCount: result.holdCount, ttlMs: result.ttlMs, grantedAt: sentAt, queued: 0 };
      }
      // Refused, so now in the server's line: a release here may pass the lock on directly.
      leaveLocalLine ??= queue.joinLocalLine?.(request.key, localWaiter);
      if (handOffsHeard !== heardBefore && passedAt === undefined) {
        // The message may have been published before this attempt ran and reached us only after it (a process paused
        // past the grant's lease hears both at once): a grant still live would have been this attempt's, so the
        // next attempt claims it or finds it gone; its lease is never dated from this refused one.
        handOff = undefined;
        continue;
      }
      // This attempt ran before any hand-off to this waiter, so a hand-off's lease started after `sentAt`.
      if (handOff === undefined) await wake.wait(Math.min(Math.max(1, result.retryAfterMs), refreshMs), signal);
      if (handOff !== undefined) return handedOver(handOff, keepsLease ? (passedAt as number) : Math.max(sentAt, passedAt ?? sentAt));
    }
  } catch (error) {
    stopped = true;
    // A cohort's pass is this waiter's hold on a lease that runs on: the caller, seeing its wait ended, gives it back.
    if (keepsLease && handOff !== undefined) return handedOver(handOff, passedAt as number);
    // Awaited, so that a release arriving after the rejection cannot hand the lock to this waiter.
    await queue.leave(request, waiterId).catch(() => undefined);
    throw error;
  } finally {
    leaveLocalLine?.();
    stopListening();
  }
}

function handedOver(handOff: HandOffMessage, grantedAt: number): ServerLineGrant {
  return { acquired: true, fencingToken: handOff.fencingToken, holdCount: 1, ttlMs: handOff.ttlMs, grantedAt, queued: handOff.queued };
}

/** How often a queued waiter refreshes its place: well within its lease, and often enough to notice a holder's lease ending unreleased. */
export function queueRefreshMs(waiterLeaseMs: number, ttlMs: number): number {
  return Math.max(1, Math.min(waiterLeaseMs / 3, ttlMs / 4));
}
