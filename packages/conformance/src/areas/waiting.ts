import { LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { expectLockError, queued } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 7. tryAcquire never waits; acquire waits, times out, aborts cleanly, wakes promptly, and keeps FIFO where claimed. */
export function describeWaiting(options: ResolvedConformanceOptions): void {
  describe("waiting", () => {
    const harness = useHarness(options);
    const longTtl = options.ttlMs * 30;

    async function heldKey(label: string) {
      const key = harness.key(label);
      const holder = await (await harness.provider()).acquire(key, { ttlMs: longTtl });
      return { key, holder };
    }

    it("tryAcquire on a held key returns null without waiting for the holder", async () => {
      const { key, holder } = await heldKey("try");
      const other = await harness.provider();
      expect(await other.tryAcquire(key, { waitMs: longTtl })).toBeNull();
      expect(holder.signal.aborted).toBe(false);
    });

    it("waitMs runs out with LOCK_TIMEOUT", async () => {
      const { key } = await heldKey("timeout");
      const started = monotonicNow();
      const error = await expectLockError((await harness.provider()).acquire(key, { waitMs: 200 }), LockErrorCode.LockTimeout);
      expect(monotonicNow() - started).toBeGreaterThanOrEqual(190);
      expect(error.message).toContain(key);
    });

    it("an aborted wait rejects with the signal's reason and leaves no lock behind", async () => {
      const { key, holder } = await heldKey("abort");
      const waiterProvider = await harness.provider();
      const controller = new AbortController();
      const reason = new Error("caller gave up");
      const waiting = waiterProvider.acquire(key, { signal: controller.signal });
      await queued(waiterProvider, key, 1);
      const abortedAt = monotonicNow();
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      expect(monotonicNow() - abortedAt).toBeLessThan(options.marginMs);
      await holder.release();
      expect(await waiterProvider.inspect(key)).toBeNull();
      expect((await (await harness.provider()).tryAcquire(key))?.holdCount).toBe(1);
    });

    it("an already-aborted signal rejects at once", async () => {
      const controller = new AbortController();
      controller.abort(new Error("never started"));
      await expect((await harness.provider()).acquire(harness.key("pre-aborted"), { signal: controller.signal })).rejects.toThrow("never started");
    });

    it("a waiter gets the key promptly after release, long before the holder's lease would end", async () => {
      const { key, holder } = await heldKey("handoff");
      const waiterProvider = await harness.provider();
      const waiting = waiterProvider.acquire(key, { ttlMs: longTtl });
      await queued(waiterProvider, key, 1);
      const releasedAt = monotonicNow();
      await holder.release();
      const lock = await waiting;
      expect(monotonicNow() - releasedAt).toBeLessThan(options.marginMs);
      expect(lock.holdCount).toBe(1);
    });

    it.skipIf(!options.capabilities.fifo)("grants waiters in arrival order", async () => {
      const { key, holder } = await heldKey("fifo");
      const order: number[] = [];
      const waiters: Promise<void>[] = [];
      for (let i = 0; i < 5; i++) {
        const provider = await harness.provider();
        waiters.push(
          provider.acquire(key, { ttlMs: longTtl }).then(async (lock) => {
            order.push(i);
            await lock.release();
          }),
        );
        // Arrival is the server's: the next waiter starts only once this one has its place in line.
        await queued(provider, key, i + 1);
      }
      await holder.release();
      await Promise.all(waiters);
      expect(order).toEqual([0, 1, 2, 3, 4]);
    });

    it("reports the FIFO capability the suite was told", async () => {
      expect((await harness.provider()).capabilities.fifo).toBe(options.capabilities.fifo);
    });
  });
}
