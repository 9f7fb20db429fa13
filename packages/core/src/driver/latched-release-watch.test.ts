import { describe, expect, it } from "vitest";
import { LatchedReleaseWatch } from "./latched-release-watch.js";

const open = () => new AbortController().signal;

describe("LatchedReleaseWatch", () => {
  it("keeps a notification that came while nobody waited for the next wait, once", async () => {
    const watch = new LatchedReleaseWatch(() => undefined);
    watch.notify();
    const started = performance.now();
    await watch.next(60_000, open());
    expect(performance.now() - started).toBeLessThan(1_000);
    // Spent: the next wait runs to its timeout.
    const second = performance.now();
    await watch.next(30, open());
    expect(performance.now() - second).toBeGreaterThanOrEqual(25);
  });

  it("wakes a pending wait on notify, on abort and on close, and unsubscribes once", async () => {
    let unsubscribed = 0;
    const watch = new LatchedReleaseWatch(() => unsubscribed++);
    const notified = watch.next(60_000, open());
    watch.notify();
    await notified;
    const controller = new AbortController();
    const aborted = watch.next(60_000, controller.signal);
    controller.abort();
    await aborted;
    const closed = watch.next(60_000, open());
    watch.close();
    watch.close();
    await closed;
    expect(unsubscribed).toBe(1);
    await watch.next(60_000, open());
  });
});
