import { LockError, type LockErrorCode } from "@distlock/core";
import { expect } from "vitest";

/** Awaits `promise`, expecting a distlock error with `code`; returns it for further checks. */
export async function expectLockError(promise: Promise<unknown>, code: LockErrorCode): Promise<LockError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeDefined();
  expect(LockError.is(error) ? error.code : error).toBe(code);
  return error as LockError;
}

/** Resolves when `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

/** Resolves after `ms`; for waiting on time itself (leases), never as a stand-in for an event. */
export function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
