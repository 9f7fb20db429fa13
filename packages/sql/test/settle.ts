import { monotonicNow } from "@distlock/core/internal";

/** The rejection of `promise` (undefined if it fulfils). */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Checks `condition` every 50 ms until it holds or `timeoutMs` passes; for state that has no event (e.g. a renewal). */
export async function eventually(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = monotonicNow() + timeoutMs;
  while (!condition()) {
    if (monotonicNow() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
