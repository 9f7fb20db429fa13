import { randomBytes } from "node:crypto";
import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import { Latch, monotonicNow } from "@distlock/core/internal";
import type { LocalWaiter } from "./cohort-lines.js";
import { type HandOffMessage, parseHandOffMessage } from "./hand-off-message.js";
import type { ChannelListener } from "./release-subscriber.js";

/**
 * A queued attempt's refusal. `tokensUpTo`, where the script can tell it: every grant of the key the server made before
 * this refusal has a fencing token at most this, every later one a larger token. So a hand-off that reaches the waiter
 * after the refusal's reply is known to be newer than the refusal (and its lease to have started after the attempt was
 * sent) only by its token: a message published before the attempt ran can arrive after its reply (the two come on
 * different connections, and a paused process reads both at once).
 */
export interface LineRefusal extends DriverRefused {
  readonly tokensUpTo?: bigint;
}

/** A queued refusal from a script's reply: the lease to wait out and the latest grant's token ("" when the key has had none). */
export function lineRefusal(retryAfterMs: number, latestToken: string): LineRefusal {
  return latestToken === "" ? { acquired: false, retryAfterMs } : { acquired: false, retryAfterMs, tokensUpTo: BigInt(latestToken) };
}

/** What a queued wait needs from the driver. */
export interface ServerLineAccess {
  /** One queue-aware attempt that queues (or refreshes) `waiterId` when refused. */
  attempt(request: DriverAcquireRequest, waiterId: string): Promise<DriverGranted | LineRefusal>;
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
 * a hand-off announced on the channel is taken without another round trip when its token shows it newer than the last
 * refusal (else the next attempt claims it or finds it gone). On any failure or abort the waiter leaves the queue
 * (giving back a lock that reached it too late; bounded by the command timeout) and then rejects.
 */
export async function waitInServerLine(queue: ServerLineAccess, request: DriverAcquireRequest, signal: AbortSignal): Promise<ServerLineGrant> {
  const waiterId = queue.newWaiterId?.() ?? randomBytes(12).toString("base64url");
  /** A grant that reached this waiter other than as its attempt's answer: a hand-off message, or a pass here. */
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
      if (passedAt !== undefined || stopped || signal.aborted) return false;
      handOff = { waiterId, fencingToken: pass.fencingToken, ttlMs: pass.ttlMs, queued: pass.queued };
      passedAt = pass.grantedAt;
      keepsLease = pass.keepsLease;
      wake.open();
      return true;
    },
  };
  const stopListening = await queue.listen(
    request.key,
    (message) => {
      const parsed = message === null ? undefined : parseHandOffMessage(message);
      if (message !== null && parsed?.waiterId !== waiterId) return;
      if (parsed !== undefined && !queue.claimHandOffs && passedAt === undefined) handOff = parsed;
      wake.open();
    },
    waiterId,
  );
  const refreshMs = queueRefreshMs(queue.waiterLeaseMs, request.ttlMs);
  try {
    for (;;) {
      signal.throwIfAborted();
      const sentAt = monotonicNow();
      const result = await queue.attempt(request, waiterId);
      if (result.acquired) {
        return { acquired: true, fencingToken: result.fencingToken, holdCount: result.holdCount, ttlMs: result.ttlMs, grantedAt: sentAt, queued: 0 };
      }
      // Refused, so now in the server's line: a release here may pass the lock on directly.
      leaveLocalLine ??= queue.joinLocalLine?.(request.key, localWaiter);
      for (;;) {
        if (keepsLease && handOff !== undefined) return handedOver(handOff, passedAt as number);
        if (handOff !== undefined) {
          // Newer than the refusal: the lease started after it ran, so after `sentAt` (and a pass's release was sent).
          if (result.tokensUpTo !== undefined && handOff.fencingToken > result.tokensUpTo) return handedOver(handOff, Math.max(sentAt, passedAt ?? sentAt));
          // Older than the refusal, which found the lock another's: that lease is over. Without a bound the next
          // attempt tells (it claims the lock or finds it gone); its lease is never dated from this refused one.
          const known = result.tokensUpTo !== undefined;
          handOff = undefined;
          passedAt = undefined;
          if (!known) break;
        }
        await wake.wait(Math.min(Math.max(1, result.retryAfterMs), refreshMs), signal);
        if (handOff === undefined) break;
      }
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
