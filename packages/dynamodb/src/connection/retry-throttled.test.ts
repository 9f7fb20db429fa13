import { describe, expect, it } from "vitest";
import { retryThrottled } from "./retry-throttled.js";

const named = (name: string) => Object.assign(new Error(name), { name });

describe("retryThrottled", () => {
  it("tries again after a throttling refusal, which DynamoDB never applied", async () => {
    let calls = 0;
    const answer = await retryThrottled(async () => {
      calls += 1;
      if (calls < 3) throw named("ProvisionedThroughputExceededException");
      return "ok";
    }, performance.now() + 5_000);
    expect([answer, calls]).toEqual(["ok", 3]);
  });

  it("never repeats a call whose failure may have taken effect", async () => {
    let calls = 0;
    const failing = retryThrottled(async () => {
      calls += 1;
      throw named("InternalServerError");
    }, performance.now() + 5_000);
    await expect(failing).rejects.toThrow("InternalServerError");
    expect(calls).toBe(1);
  });

  it("gives up with the refusal once the call's deadline passes", async () => {
    const dueAt = performance.now() + 60;
    await expect(retryThrottled(async () => Promise.reject(named("ThrottlingException")), dueAt)).rejects.toThrow("ThrottlingException");
    expect(performance.now()).toBeGreaterThanOrEqual(dueAt);
  });
});
