import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { abortByDeadline, aborted, elapse } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 5. Leases expire without renewal, the watchdog keeps them, and loss is signalled before anyone else can win. */
export function describeTtlAndRenewal(options: ResolvedConformanceOptions): void {
  describe("TTL and renewal", () => {
    const harness = useHarness(options);
    const { ttlMs, marginMs } = options;

    it("a hold without renewal expires after its TTL, not before", async () => {
      const key = harness.key("expiry");
      const [holder, other] = [await harness.provider(), await harness.provider()];
      const started = monotonicNow();
      await holder.acquire(key, { ttlMs, autoRenew: false });
      expect(await other.tryAcquire(key)).toBeNull();
      await elapse(ttlMs * 0.5);
      expect(await other.tryAcquire(key)).toBeNull();
      await other.acquire(key, { waitMs: ttlMs + marginMs });
      const took = monotonicNow() - started;
      expect(took).toBeGreaterThanOrEqual(ttlMs * 0.5);
      expect(took).toBeLessThan(ttlMs + marginMs);
    });

    it("the watchdog keeps a hold past 3 x TTL", async () => {
      const key = harness.key("watchdog");
      const [holder, other] = [await harness.provider(), await harness.provider()];
      const lock = await holder.acquire(key, { ttlMs });
      await elapse(ttlMs * 3.5);
      expect(await other.tryAcquire(key)).toBeNull();
      expect(lock.signal.aborted).toBe(false);
      expect(lock.remainingMs()).toBeGreaterThan(0);
      expect((await other.inspect(key))?.holder).toBe(lock.holder);
      await lock.release();
    });

    it("signal aborts with LOCK_LOST before another owner can get the key when renewals stop", async () => {
      const key = harness.key("deadline");
      const [holder, other] = [await harness.provider(), await harness.provider()];
      const lock = await holder.acquire(key, { ttlMs, autoRenew: false });
      let abortedAt = Number.POSITIVE_INFINITY;
      void aborted(lock.signal).then(() => {
        abortedAt = monotonicNow();
      });
      await other.acquire(key, { waitMs: ttlMs + marginMs });
      const acquiredAt = monotonicNow();
      expect(abortedAt).toBeLessThanOrEqual(acquiredAt);
      expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
      expect(lock.remainingMs()).toBe(0);
    });

    it.skipIf(options.faults === undefined)(
      "signal aborts with LOCK_LOST by the deadline when the server stops answering, and the key is usable again afterwards",
      async () => {
        const faults = options.faults as NonNullable<typeof options.faults>;
        const key = harness.key("outage");
        const holder = await harness.provider();
        const lock = await holder.acquire(key, { ttlMs });
        await faults.pause();
        try {
          expect(await abortByDeadline(lock.signal, lock.validUntil, ttlMs + marginMs)).toBe("in time");
          expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
        } finally {
          await faults.resume();
        }
        const other = await harness.provider();
        const next = await other.acquire(key, { ttlMs, waitMs: ttlMs + marginMs * 4 });
        expect(next.holder).toBeTruthy();
      },
    );
  });
}
