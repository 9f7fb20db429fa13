import { describe, expect, it } from "vitest";
import { CallDeadlines, type CallSignal } from "./call-deadlines.js";

/** A call that never answers by itself, settled (as the SDK does) when its request is aborted. */
function hangingCall(signal: CallSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.onabort = () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
  });
}

describe("CallDeadlines", () => {
  it("hands on a call's answer and its failure", async () => {
    const deadlines = new CallDeadlines(1_000);
    await expect(deadlines.run(async () => "answer")).resolves.toBe("answer");
    await expect(deadlines.run(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    deadlines.close();
  });

  it("fails a call that has not answered within the bound, and aborts its request", async () => {
    const deadlines = new CallDeadlines(50);
    let seen: CallSignal | undefined;
    const started = performance.now();
    const call = deadlines.run((signal) => {
      seen = signal;
      return hangingCall(signal);
    });
    await expect(call).rejects.toThrow("DynamoDB did not answer within 50 ms");
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
    expect(seen?.aborted).toBe(true);
  });

  it("gives each call its whole bound, counted from its own start", async () => {
    const deadlines = new CallDeadlines(80);
    const first = deadlines.run(hangingCall);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const secondStarted = performance.now();
    const second = deadlines.run(hangingCall);
    await expect(first).rejects.toThrow("did not answer");
    await expect(second).rejects.toThrow("did not answer");
    expect(performance.now() - secondStarted).toBeGreaterThanOrEqual(79);
  });

  it("fails a call that cannot be aborted (it never reads its signal)", async () => {
    const deadlines = new CallDeadlines(30);
    await expect(deadlines.run(() => new Promise(() => {}))).rejects.toThrow("did not answer within 30 ms");
  });
});
