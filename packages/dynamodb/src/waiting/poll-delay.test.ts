import { describe, expect, it } from "vitest";
import { MAX_POLL_DELAY_MS, MIN_POLL_DELAY_MS, PollDelay } from "./poll-delay.js";

describe("PollDelay", () => {
  const MID = 0.5;

  it("starts short at the head and doubles while the waiter does not move, up to the cap", () => {
    const delay = new PollDelay();
    const sleeps = Array.from({ length: 9 }, () => delay.next(0, MID));
    expect(sleeps.slice(0, 4)).toEqual([MIN_POLL_DELAY_MS, 2 * MIN_POLL_DELAY_MS, 4 * MIN_POLL_DELAY_MS, 8 * MIN_POLL_DELAY_MS]);
    expect(sleeps.at(-1)).toBe(MAX_POLL_DELAY_MS);
  });

  it("starts short again each time the waiter moves up, however long it waited before", () => {
    const delay = new PollDelay();
    for (let i = 0; i < 10; i++) delay.next(3, MID);
    expect(delay.next(2, MID)).toBe(2 * MIN_POLL_DELAY_MS);
    expect(delay.next(0, MID)).toBe(MIN_POLL_DELAY_MS);
  });

  it("sleeps longer the more places are ahead, never past the cap, jittered by half either way", () => {
    expect(new PollDelay().next(1, MID)).toBe(MIN_POLL_DELAY_MS);
    expect(new PollDelay().next(9, MID)).toBe(9 * MIN_POLL_DELAY_MS);
    expect(new PollDelay().next(999, 0.99)).toBe(MAX_POLL_DELAY_MS);
    expect(new PollDelay().next(0, 0)).toBe(MIN_POLL_DELAY_MS / 2);
  });
});
