import { holdFor } from "./hold-for.js";
import type { Permit, PermitAcquireOptions, Semaphore } from "./types.js";

/**
 * Acquires permits of `semaphore`, runs `fn(permit, permit.signal)` and gives them back in `finally`.
 * Stop work when the signal aborts: the permits are gone.
 */
export async function withPermit<T>(
  semaphore: Semaphore,
  fn: (permit: Permit, signal: AbortSignal) => Promise<T> | T,
  options?: PermitAcquireOptions,
): Promise<T> {
  return holdFor(await semaphore.acquire(options), fn);
}
