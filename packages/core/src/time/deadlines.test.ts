import { describe, expect, it } from "vitest";
import { Deadlines, type Expiring } from "./deadlines.js";
import { monotonicNow } from "./monotonic.js";

/** An entry that records when it expired and resolves `expired` then. */
function entry(timeoutMs: number): Expiring & { expiredAt: number | undefined; expired: Promise<void> } {
  let done: () => void = () => undefined;
  const expired = new Promise<void>((resolve) => (done = resolve));
  const it = {
    deadline: monotonicNow() + timeoutMs,
    timeoutMs,
    expiredAt: undefined as number | undefined,
    expired,
    expire() {
      it.expiredAt = monotonicNow();
      done();
    },
  };
  return it;
}

describe("Deadlines", () => {
  it("expires an entry at its deadline, not before, and only entries still pending", async () => {
    const deadlines = new Deadlines();
    const answered = entry(30);
    const silent = entry(40);
    deadlines.add(answered);
    deadlines.add(silent);
    expect(deadlines.delete(answered)).toBe(true);
    await silent.expired;
    expect(silent.expiredAt).toBeGreaterThanOrEqual(silent.deadline);
    expect(answered.expiredAt).toBeUndefined();
    expect(deadlines.has(silent)).toBe(false);
    expect(deadlines.delete(silent)).toBe(false);
  });

  it("moves its one timer forward for an entry due sooner than the one it was armed for", async () => {
    const deadlines = new Deadlines();
    const late = entry(5_000);
    const soon = entry(20);
    deadlines.add(late);
    deadlines.add(soon);
    await soon.expired;
    expect(soon.expiredAt).toBeLessThan(late.deadline);
    expect(late.expiredAt).toBeUndefined();
    expect(deadlines.delete(late)).toBe(true);
  });
});
