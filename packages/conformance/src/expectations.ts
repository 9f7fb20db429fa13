import { LockError, type LockErrorCode, type LockProvider, monotonicNow } from "@distlock/core";
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

/** Resolves once `check` holds, asking again right after each answer (a fact, not a sleep); fails after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = monotonicNow() + timeoutMs;
  while (!(await check())) {
    if (monotonicNow() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Resolves once the server shows at least `count` waiters in line for `key`. A backend without a server line
 * (`capabilities.fifo` false) has no such fact to show: its waiters get a moment to start waiting instead.
 */
export function queued(provider: LockProvider, key: string, count: number): Promise<void> {
  if (!provider.capabilities.fifo) return elapse(50);
  return until(`${count} waiter(s) in line for ${key}`, async () => ((await provider.inspect(key))?.waiters ?? 0) >= count);
}
