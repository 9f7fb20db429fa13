import { abortableSleep, type DriverAcquireRequest, type DriverAcquireResult, type DriverGranted, MIN_POLL_INTERVAL_MS, monotonicNow } from "@distlock/core";

/** How long a waiter's place stays live after its last poll; bounds how long a vanished waiter holds up a free key. */
export const WAITER_CLAIM_MS = 2_000;
/** Longest sleep of the first waiter in line: it takes the key this soon after a release. */
export const HEAD_POLL_MAX_MS = 25;
/** Longest sleep of a waiter further back: it only has to keep its place live and notice when it is first. */
export const QUEUED_POLL_MAX_MS = 250;

/** What waiting in the server-side line needs from the driver (each call one or two statements). */
export interface LineOperations {
  /** Joins the line or keeps the place already held. */
  keepPlace(request: DriverAcquireRequest): Promise<void>;
  /** One attempt; a free key goes to the first live waiter. */
  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult>;
  /** Live waiters ahead of this one. */
  ahead(request: DriverAcquireRequest): Promise<number>;
  /** Leaves the line. */
  leave(request: DriverAcquireRequest): Promise<void>;
  /** Undoes a grant that arrived after the wait was aborted. */
  release(request: DriverAcquireRequest): Promise<unknown>;
}

/**
 * A polling dialect's native wait: keeps a live place in the server-side line on every poll and retries; the
 * first waiter polls fast (bounded by the holder's lease), the others slowly. It leaves the line however it ends,
 * and an aborted wait undoes a grant that raced the abort before it rejects with `signal.reason`.
 */
export async function waitInLine(line: LineOperations, request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
  let backoffMs = MIN_POLL_INTERVAL_MS;
  let wasFirst = false;
  try {
    for (;;) {
      signal.throwIfAborted();
      const startedAt = monotonicNow();
      await line.keepPlace(request);
      const result = await line.tryAcquire(request);
      if (result.acquired) {
        if (signal.aborted) {
          await line.release(request).catch(() => undefined);
          throw signal.reason;
        }
        return { ...result, grantedAt: startedAt };
      }
      const first = (await line.ahead(request)) === 0;
      if (first && !wasFirst) backoffMs = MIN_POLL_INTERVAL_MS;
      wasFirst = first;
      const jittered = Math.min(backoffMs, first ? HEAD_POLL_MAX_MS : QUEUED_POLL_MAX_MS) * (0.5 + Math.random());
      await abortableSleep(first ? Math.max(MIN_POLL_INTERVAL_MS, Math.min(jittered, result.retryAfterMs)) : jittered, signal);
      backoffMs = Math.min(backoffMs * 2, QUEUED_POLL_MAX_MS);
    }
  } finally {
    await line.leave(request).catch(() => undefined);
  }
}
