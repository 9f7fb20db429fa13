import { type InvalidConfigError, LockError, LockErrorCode, type LockProvider } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
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

/** The `field` of the `InvalidArgumentError` that `call` throws synchronously; fails the test if it throws none. */
export function invalidField(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (LockError.is(error, LockErrorCode.InvalidArgument)) return (error as LockError & { field: string }).field;
    throw error;
  }
  throw new Error("expected INVALID_ARGUMENT");
}

/** The `InvalidConfigError` that `run` throws synchronously (a backend's options or URL refused); fails the test if it throws none. */
export function invalidConfigOf(run: () => unknown): InvalidConfigError {
  try {
    run();
  } catch (error) {
    expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
    return error as InvalidConfigError;
  }
  throw new Error("expected an InvalidConfigError");
}

/** Resolves when `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

/** How late a timer may run after another due at the same time: both go in one pass of the event loop. */
export const TIMER_ORDER_SLACK_MS = 15;

/**
 * How many ms `signal` aborted after a timer armed now for `deadline` (monotonic ms) fired; negative if it came
 * first, Infinity if it never did within `timeoutMs`. On a loaded machine every timer runs late, so a deadline is
 * only missed when the abort comes after a timer that was due at the same moment, not after the clock passes it.
 */
export async function abortLateness(signal: AbortSignal, deadline: number, timeoutMs: number): Promise<number> {
  const abortedAt = Promise.race([aborted(signal).then(() => monotonicNow()), elapse(timeoutMs).then(() => Number.POSITIVE_INFINITY)]);
  const dueAt = elapse(Math.max(0, deadline - monotonicNow())).then(() => monotonicNow());
  const [abortTime, dueTime] = await Promise.all([abortedAt, dueAt]);
  return abortTime - dueTime;
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
