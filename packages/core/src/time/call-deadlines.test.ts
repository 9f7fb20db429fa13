import { describe, expect, it } from "vitest";
import { CallDeadlines } from "./call-deadlines.js";
import { monotonicNow } from "./monotonic.js";

const never = () => new Promise<never>(() => undefined);
const timeoutError = () => new Error("no answer");

function later<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

describe("CallDeadlines", () => {
  it("passes an answer or a failure through unchanged", async () => {
    const deadlines = new CallDeadlines();
    await expect(deadlines.bound(Promise.resolve(7), 1_000, timeoutError)).resolves.toBe(7);
    const failure = new Error("refused");
    await expect(deadlines.bound(Promise.reject(failure), 1_000, timeoutError)).rejects.toBe(failure);
  });

  it("rejects a call with no answer at its deadline, not before", async () => {
    const deadlines = new CallDeadlines();
    const started = monotonicNow();
    await expect(deadlines.bound(never(), 80, timeoutError)).rejects.toThrow("no answer");
    const elapsed = monotonicNow() - started;
    expect(elapsed).toBeGreaterThanOrEqual(79);
    expect(elapsed).toBeLessThan(80 + 80 / 8 + 50);
  });

  it("a shorter deadline that arrives after a longer one still fires on time", async () => {
    const deadlines = new CallDeadlines();
    const long = deadlines.bound(never(), 5_000, timeoutError);
    long.catch(() => undefined);
    const started = monotonicNow();
    await expect(deadlines.bound(never(), 60, timeoutError)).rejects.toThrow("no answer");
    expect(monotonicNow() - started).toBeLessThan(60 + 60 / 8 + 50);
  });

  it("hands a result that came after the deadline to onLate, and keeps bounding the calls still pending", async () => {
    const deadlines = new CallDeadlines();
    const late: number[] = [];
    await expect(deadlines.bound(later(120, 1), 40, timeoutError, (value) => late.push(value))).rejects.toThrow("no answer");
    const second = deadlines.bound(never(), 40, timeoutError);
    await expect(second).rejects.toThrow("no answer");
    await later(120, undefined);
    expect(late).toEqual([1]);
  });

  it("calls that answer in time never reject, however many share the timer", async () => {
    const deadlines = new CallDeadlines();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => deadlines.bound(later(i % 20, i), 100, timeoutError)));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
