import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { abortByDeadline } from "./expectations.js";

/** Blocks the event loop for `ms`, as a descheduled process or a long callback would. */
function block(ms: number): void {
  const until = monotonicNow() + ms;
  while (monotonicNow() < until);
}

/**
 * A signal aborted by a timer `delayMs` from now, armed before the check's own timers as a hold's deadline timer is; its
 * callback first stalls the loop for `stallMs`, as a descheduled process would.
 */
function abortingIn(delayMs: number, stallMs = 0): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => {
    block(stallMs);
    controller.abort(new Error("deadline"));
  }, delayMs);
  return controller.signal;
}

describe("abortByDeadline", () => {
  it("passes a signal aborted by a timer due at its deadline even when the loop stalls 40 ms before the abort", async () => {
    const deadline = monotonicNow() + 30;
    // Due 1 ms after the check's own deadline timer, so the stall falls between the two callbacks.
    expect(await abortByDeadline(abortingIn(31, 40), deadline, 1_000)).toBe("in time");
  });

  it("fails a signal that aborts 500 ms after its deadline", async () => {
    // Far later than the check's slack: only a stall spanning both the deadline and the abort could hide it.
    const deadline = monotonicNow() + 30;
    expect(await abortByDeadline(abortingIn(530), deadline, 2_000)).toMatch(/^late: aborted \d+ ms after the deadline/);
  });

  it("fails a signal that never aborts, after the timeout", async () => {
    expect(await abortByDeadline(new AbortController().signal, monotonicNow() + 10, 50)).toBe("never aborted within 50 ms");
  });
});
