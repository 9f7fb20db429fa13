import { expect, it } from "vitest";
import type { SqlLockProvider } from "../src/sql-lock-provider.js";
import { queuedOnServer, uniqueKey } from "./session-lock-tests.js";

const ROUNDS = 200;

/**
 * Waits aborted just as the lock is handed to them: the cancel sent to the waiting session races the grant. Whichever
 * wins, nothing may stay held and the cancel may not land on any other statement of the process's sessions.
 */
export function sessionAbortTests(provider: (label?: string) => SqlLockProvider): void {
  it(`a wait aborted as the lock is handed to it leaves the key free and cancels no other statement (${ROUNDS} rounds)`, async () => {
    const holders = provider("abort-holder");
    const waiters = provider("abort-waiter");
    const reason = new Error("caller gave up");
    const leftHeld: string[] = [];
    const failed: string[] = [];
    let granted = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const key = uniqueKey("abort-race");
      const holder = await holders.acquire(key);
      const controller = new AbortController();
      const waiting = waiters.acquire(key, { signal: controller.signal }).then(
        (lock) => ({ lock }),
        (error: unknown) => ({ error }),
      );
      await queuedOnServer(holders, key);
      await holder.release();
      // A turn later the grant is on its way to the waiter, or already read.
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort(reason);
      const outcome = await waiting;
      if ("lock" in outcome) {
        granted += 1;
        await outcome.lock.release();
      } else if (outcome.error !== reason) failed.push(`round ${round}: acquire ${String(outcome.error)}`);
      if ((await holders.inspect(key)) !== null) leftHeld.push(key);
      // Statements of both providers after the abort: a cancel that lands late fails one of them.
      await waiters
        .tryAcquire(`${key}-after`)
        .then((lock) => lock?.release())
        .catch((error: unknown) => failed.push(`round ${round}: ${String(error)}`));
    }
    expect({ leftHeld, failed }).toEqual({ leftHeld: [], failed: [] });
    // Both outcomes were met: the rounds did reach the race, from either side.
    expect(granted).toBeLessThan(ROUNDS);
  });
}
