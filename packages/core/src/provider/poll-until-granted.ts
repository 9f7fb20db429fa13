import type { DriverAcquireRequest, DriverGranted, LockDriver, ReleaseWatch } from "../driver/lock-driver.js";
import { stampGrant } from "../driver/stamp-grant.js";
import { MAX_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS } from "../options/defaults.js";
import { abortableSleep } from "../time/abortable-sleep.js";
import { monotonicNow } from "../time/monotonic.js";
import type { LocalWaitQueue } from "./local-wait-queue.js";

/**
 * Waits for a driver without native queues: first in this process's line, then retries on each
 * release notification (or jittered backoff without one), every sleep bounded by the holder's lease.
 */
export async function pollUntilGranted(driver: LockDriver, request: DriverAcquireRequest, signal: AbortSignal, queue: LocalWaitQueue): Promise<DriverGranted> {
  const ticket = queue.enter(request.key);
  let watch: ReleaseWatch | undefined;
  try {
    await ticket.turn(signal);
    signal.throwIfAborted();
    watch = await driver.watchReleases?.(request.key);
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
    ticket.leave();
  }
}
