import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Latch } from "./latch.js";

/** Whether `wait` has settled once the callbacks queued so far have run. */
function settled(wait: Promise<void>): Promise<boolean> {
  return Promise.race([wait.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

describe("Latch", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wakes a pending wait when opened, leaving no timer and no abort listener", async () => {
    const latch = new Latch();
    const controller = new AbortController();
    const wait = latch.wait(1_000, controller.signal);
    expect(await settled(wait)).toBe(false);
    expect(abortListeners(controller.signal)).toBe(1);
    latch.open();
    expect(await settled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it("times out after timeoutMs, not before, and removes its abort listener", async () => {
    const latch = new Latch();
    const controller = new AbortController();
    const wait = latch.wait(1_000, controller.signal);
    vi.advanceTimersByTime(999);
    expect(await settled(wait)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(wait)).toBe(true);
    expect(abortListeners(controller.signal)).toBe(0);
    expect(latch.isOpen).toBe(false);
  });

  it("ends on abort and clears its timer", async () => {
    const latch = new Latch();
    const controller = new AbortController();
    const wait = latch.wait(1_000, controller.signal);
    controller.abort();
    expect(await settled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it("returns at once on a signal that already aborted, arming nothing", async () => {
    const signal = AbortSignal.abort();
    expect(await settled(new Latch().wait(1_000, signal))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(abortListeners(signal)).toBe(0);
  });

  it("settles once: an opening after an abort is kept for the next wait", async () => {
    const latch = new Latch("spent-by-wait");
    const controller = new AbortController();
    const wait = latch.wait(1_000, controller.signal);
    controller.abort();
    latch.open();
    expect(await settled(wait)).toBe(true);
    expect(latch.isOpen).toBe(true);
  });

  it("waits without a signal", async () => {
    const wait = new Latch().wait(10);
    vi.advanceTimersByTime(10);
    expect(await settled(wait)).toBe(true);
  });

  it("does not keep the process alive while it waits", async () => {
    vi.useRealTimers();
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    const latch = new Latch();
    const wait = latch.wait(60_000);
    const timer = setTimer.mock.results[0]?.value as NodeJS.Timeout;
    setTimer.mockRestore();
    expect(timer.hasRef()).toBe(false);
    latch.open();
    await wait;
  });

  describe("stays open", () => {
    it("lets every later wait return at once", async () => {
      const latch = new Latch("stays-open");
      latch.open();
      expect(await settled(latch.wait(1_000))).toBe(true);
      expect(await settled(latch.wait(1_000))).toBe(true);
      expect(latch.isOpen).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("wakes every pending wait", async () => {
      const latch = new Latch("stays-open");
      const waits = [latch.wait(1_000), latch.wait(1_000)];
      latch.open();
      expect(await Promise.all(waits.map(settled))).toEqual([true, true]);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe("spent by wait", () => {
    it("keeps an opening nobody waited for until the next wait, and only for that one", async () => {
      const latch = new Latch("spent-by-wait");
      latch.open();
      latch.open();
      expect(latch.isOpen).toBe(true);
      expect(await settled(latch.wait(1_000))).toBe(true);
      expect(latch.isOpen).toBe(false);
      expect(await settled(latch.wait(1_000))).toBe(false);
    });

    it("spends an opening on the waits it woke", async () => {
      const latch = new Latch("spent-by-wait");
      const waits = [latch.wait(1_000), latch.wait(1_000)];
      latch.open();
      expect(await Promise.all(waits.map(settled))).toEqual([true, true]);
      expect(latch.isOpen).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("spends an opening on a wait whose signal already aborted", async () => {
      const latch = new Latch("spent-by-wait");
      latch.open();
      expect(await settled(latch.wait(1_000, AbortSignal.abort()))).toBe(true);
      expect(latch.isOpen).toBe(false);
    });
  });
});
