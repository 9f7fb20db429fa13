import { LockError } from "@distlock/core";
import { expect } from "vitest";

/** The LockError `promise` rejects with (the test fails if it resolves, or rejects with anything else). */
export async function failure(promise: Promise<unknown>): Promise<LockError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(LockError.is(error), String(error)).toBe(true);
  return error as LockError;
}

/** Resolves once `signal` is aborted (at once if it already is). */
export const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
