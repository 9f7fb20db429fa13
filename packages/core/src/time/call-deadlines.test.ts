import { describe, expect, it, vi } from "vitest";
import { CallDeadlines, type CallOutcomes } from "./call-deadlines.js";
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

  it("settle turns the answer, the failure and the timeout into the caller's by its outcomes, with each call's context", async () => {
    const deadlines = new CallDeadlines();
    const late: string[] = [];
    const outcomes: CallOutcomes<number, string, string> = {
      value: (value, context) => {
        if (value < 0) throw new Error(`${context}: negative`);
        return `${context}=${value}`;
      },
      error: (error, context) => new Error(`${context} failed: ${(error as Error).message}`),
      timedOut: (timeoutMs, context) => new Error(`${context}: nothing in ${timeoutMs} ms`),
      late: (value, context) => late.push(`${context}=${value}`),
    };
    await expect(deadlines.settle(Promise.resolve(7), 1_000, outcomes, "a")).resolves.toBe("a=7");
    await expect(deadlines.settle(Promise.resolve(-1), 1_000, outcomes, "b")).rejects.toThrow("b: negative");
    await expect(deadlines.settle(Promise.reject(new Error("refused")), 1_000, outcomes, "c")).rejects.toThrow("c failed: refused");
    await expect(deadlines.settle(later(120, 3), 40, outcomes, "d")).rejects.toThrow("d: nothing in 40 ms");
    await vi.waitFor(() => expect(late).toEqual(["d=3"]));
  });

  it("calls that answer in time never reject, however many share the timer", async () => {
    const deadlines = new CallDeadlines();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => deadlines.bound(later(i % 20, i), 100, timeoutError)));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
