import type { DriverAcquireRequest, DriverGranted } from "../driver/driver-attempt.js";
import type { LockDriver, ReleaseWatch } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { MAX_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS } from "../options/defaults.js";
import { abortableSleep } from "../time/abortable-sleep.js";
import { monotonicNow } from "../time/monotonic.js";
import type { WaitTicket } from "./process-lines.js";

/**
 * Waits for a driver without native queues: first for `ticket`'s turn in this process's line (the caller leaves it), then retries on each
 * release notification (or jittered backoff without one), every sleep bounded by the holder's lease.
 * `heldHereMs(key)` is how long a hold of the key in this process still lasts (undefined without one).
 */
export async function pollUntilGranted(
  driver: LockDriver,
  request: DriverAcquireRequest,
  signal: AbortSignal,
  ticket: WaitTicket,
  heldHereMs: (key: string) => number | undefined,
): Promise<DriverGranted> {
  let watch: ReleaseWatch | undefined;
  try {
    await ticket.turn(signal);
    signal.throwIfAborted();
    watch = await driver.watchReleases?.(request.key);
    // Often the line's previous head has just won the key: an attempt now is sure to fail, so the first
    // one waits for a release the watch (already listening) sees, as the other processes' waiters do.
    const localHoldMs = heldHereMs(request.key);
    if (watch !== undefined && localHoldMs !== undefined) await watch.next(Math.max(1, localHoldMs), signal);
    let backoffMs = MIN_POLL_INTERVAL_MS;
    for (;;) {
      signal.throwIfAborted();
      const startedAt = monotonicNow();
      const result = await driver.tryAcquire(request);
      if (result.acquired) return stampGrant(result, startedAt);
      const leaseBoundMs = Math.max(1, result.retryAfterMs);
      if (watch !== undefined) {
        await watch.next(leaseBoundMs, signal);
      } else {
        await abortableSleep(Math.min(backoffMs * (0.5 + Math.random()), leaseBoundMs), signal);
        backoffMs = Math.min(backoffMs * 2, MAX_POLL_INTERVAL_MS);
      }
    }
  } finally {
    watch?.close();
  }
}
