import { describe, expect, it, vi } from "vitest";
import { ReleaseLatch } from "./release-latch.js";

/** Whether `wait` has settled once the callbacks queued so far have run. */
function settled(wait: Promise<void>): Promise<boolean> {
  return Promise.race([wait.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

describe("ReleaseLatch", () => {
  it("keeps a release seen while nobody waited for the next wait only", async () => {
    const latch = new ReleaseLatch(() => undefined);
    latch.notify();
    expect(await settled(latch.next(60_000, new AbortController().signal))).toBe(true);
    const second = latch.next(60_000, new AbortController().signal);
    expect(await settled(second)).toBe(false);
    latch.notify();
    expect(await settled(second)).toBe(true);
  });

  it("close wakes the pending wait, ends every later one at once and unsubscribes once", async () => {
    const onClose = vi.fn();
    const latch = new ReleaseLatch(onClose);
    const pending = latch.next(60_000, new AbortController().signal);
    latch.close();
    latch.close();
    expect(await settled(pending)).toBe(true);
    expect(await settled(latch.next(60_000, new AbortController().signal))).toBe(true);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
