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

/** How long after its deadline a signal may abort: the timers due by then run first, whatever the scheduler does. */
const TIMER_ORDER_SLACK_MS = 15;

/**
 * Whether `signal` aborted by `deadline` (monotonic ms): `"in time"`, or why not. Judged by the order of timers, not by
 * clocks read in their callbacks: when a timer armed now for the deadline fires, a second one is armed for
 * `TIMER_ORDER_SLACK_MS` later, and the abort must come before that one fires. Node runs due timers in deadline order,
 * so a process descheduled between two callbacks of one pass (tens of ms on a loaded machine) cannot fail a signal that
 * aborted on time, while one armed too late still does, unless a stall spans both the deadline and the late abort (the
 * price of never failing a punctual one). Gives up after `timeoutMs`.
 */
export async function abortByDeadline(signal: AbortSignal, deadline: number, timeoutMs: number): Promise<string> {
  let abortedAt: number | undefined;
  const abort = aborted(signal).then(() => {
    abortedAt = monotonicNow();
  });
  await elapse(Math.max(0, deadline - monotonicNow()));
  await elapse(TIMER_ORDER_SLACK_MS);
  const overAt = monotonicNow();
  if (abortedAt !== undefined && abortedAt <= overAt) return "in time";
  await Promise.race([abort, elapse(timeoutMs)]);
  if (abortedAt === undefined) return `never aborted within ${timeoutMs} ms`;
  return `late: aborted ${Math.round(abortedAt - deadline)} ms after the deadline, after a timer due ${TIMER_ORDER_SLACK_MS} ms past it had fired`;
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
