import type { DriverAcquireRequest, DriverGranted, ReleaseWatch } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { abortableSleep, MIN_POLL_INTERVAL_MS, monotonicNow, stampGrant } from "@distlock/core/internal";

/** How long a waiter's place stays live after its last poll; bounds how long a vanished waiter holds up a free key. */
export const WAITER_CLAIM_MS = 2_000;
/** Longest sleep of a polling waiter per place before it in line (the first: this, the second: twice this, ...). */
export const HEAD_POLL_MAX_MS = 25;
/** Longest sleep of any waiter; well inside the claim window, so a live waiter's place never lapses. */
export const QUEUED_POLL_MAX_MS = 250;

/** What waiting in the server-side line needs from the driver, for requests of type `R`. */
export interface LineOperations<R extends DriverAcquireRequest = DriverAcquireRequest> {
  /** Notifications that it is this waiter's turn, where the dialect has them (PostgreSQL's LISTEN); subscribed before the first poll. */
  readonly watch: ((request: R) => Promise<ReleaseWatch>) | undefined;
  /** Joins the line or keeps the place already held, then attempts (a free key goes to the first live waiter); a grant leaves the line. */
  attempt(request: R): Promise<DriverAcquireResult>;
  /** Live waiters ahead of this one. */
  ahead(request: R): Promise<number>;
  /** Leaves the line. */
  leave(request: R): Promise<void>;
  /** Undoes a grant that arrived after the wait was aborted. */
  release(request: R): Promise<unknown>;
  /** Resolves when a wait that ended through `signal` may leave the line or undo its grant (see `InFlight.cleanupTurn`). */
  cleanupTurn(signal: AbortSignal): Promise<void>;
}

/**
 * The SQL driver's native wait: keeps a live place in the server-side line on every poll and retries. With
 * notifications a waiter sleeps until a release names it as first in line, bounded by the holder's lease and by
 * the claim window (so its place stays live and a stale first place cannot hold it up for long). Without them a
 * waiter polls the sooner the nearer it is to the front, the first one bounded by the holder's lease. It leaves
 * the line however it ends, and an aborted wait undoes a grant that raced the abort before it rejects with
 * `signal.reason`.
 */
export async function waitInLine<R extends DriverAcquireRequest>(line: LineOperations<R>, request: R, signal: AbortSignal): Promise<DriverGranted> {
  let backoffMs = MIN_POLL_INTERVAL_MS;
  let lastAhead = Number.POSITIVE_INFINITY;
  const watch = await line.watch?.(request);
  let granted = false;
  try {
    for (;;) {
      signal.throwIfAborted();
      const startedAt = monotonicNow();
      const result = await line.attempt(request);
      if (result.acquired) {
        granted = true;
        if (signal.aborted) {
          await line.cleanupTurn(signal);
          await line.release(request).catch(() => undefined);
          throw signal.reason;
        }
        return stampGrant(result, startedAt);
      }
      // A refusal of a free key (retryAfterMs 1) means a waiter before this one takes it; its release will be announced.
      const leaseBoundMs = result.retryAfterMs > 1 ? Math.min(result.retryAfterMs, QUEUED_POLL_MAX_MS) : QUEUED_POLL_MAX_MS;
      if (watch !== undefined) {
        await watch.next(leaseBoundMs, signal);
        continue;
      }
      const ahead = await line.ahead(request);
      if (ahead < lastAhead) backoffMs = MIN_POLL_INTERVAL_MS;
      lastAhead = ahead;
      const capMs = Math.min(QUEUED_POLL_MAX_MS, HEAD_POLL_MAX_MS * (ahead + 1));
      const sleepMs = Math.min(backoffMs, capMs) * (0.5 + Math.random());
      await abortableSleep(ahead === 0 ? Math.max(MIN_POLL_INTERVAL_MS, Math.min(sleepMs, result.retryAfterMs)) : sleepMs, signal);
      backoffMs = Math.min(backoffMs * 2, QUEUED_POLL_MAX_MS);
    }
  } finally {
    watch?.close();
    if (!granted) {
      await line.cleanupTurn(signal);
      await line.leave(request).catch(() => undefined);
    }
  }
}
