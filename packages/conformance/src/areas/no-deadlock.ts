import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 2. A holder that dies blocks others for at most its TTL. */
export function describeNoDeadlock(options: ResolvedConformanceOptions): void {
  describe("no deadlock", () => {
    const harness = useHarness(options);
    const { ttlMs, marginMs } = options;

    it("frees the key within its TTL when the holder abandons it without releasing", async () => {
      const key = harness.key("abandoned");
      const [holder, other] = [await harness.provider(), await harness.provider()];
      await holder.acquire(key, { ttlMs, autoRenew: false });
      const started = monotonicNow();
      await other.acquire(key, { ttlMs, waitMs: ttlMs + marginMs });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + marginMs);
    });

    it.skipIf(!options.crossProcess)("frees the key within TTL + margin after its holder process is SIGKILLed", async () => {
      const key = harness.key("killed");
      const worker = harness.worker();
      await worker.next("ready");
      worker.run({ kind: "hold", key, ttlMs });
      await worker.next("held");
      const other = await harness.provider();
      expect(await other.tryAcquire(key, { ttlMs })).toBeNull();
      worker.kill();
      await worker.exited;
      const started = monotonicNow();
      const lock = await other.acquire(key, { ttlMs, waitMs: ttlMs + marginMs });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + marginMs);
      expect(lock.holdCount).toBe(1);
    });
  });
}
