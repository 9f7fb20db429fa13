import { runAsLockOwner, withLock } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 4. The same owner re-enters; everyone else stays excluded until the count is back to 0. */
export function describeReentrancy(options: ResolvedConformanceOptions): void {
  describe("reentrancy", () => {
    const harness = useHarness(options);
    const ttlMs = options.ttlMs * 10;

    it("a nested acquire in the same async context re-enters with the same token and needs as many releases", async () => {
      const key = harness.key("nested");
      const [locks, other] = [await harness.provider(), await harness.provider()];
      await withLock(
        locks,
        key,
        async (outer) => {
          const inner = await locks.acquire(key, { ttlMs });
          expect([outer.holdCount, inner.holdCount]).toEqual([1, 2]);
          expect(inner.fencingToken).toBe(outer.fencingToken);
          expect((await locks.inspect(key))?.holdCount).toBe(2);
          await inner.release();
          expect(await other.tryAcquire(key, { owner: `someone-else-${crypto.randomUUID()}` })).toBeNull();
          expect((await locks.inspect(key))?.holdCount).toBe(1);
        },
        { ttlMs },
      );
      expect((await other.tryAcquire(key))?.holdCount).toBe(1);
    });

    it("unrelated callers in the same process are excluded", async () => {
      const key = harness.key("unrelated");
      const locks = await harness.provider();
      const first = await runAsLockOwner(() => locks.acquire(key, { ttlMs }));
      const second = await runAsLockOwner(() => locks.tryAcquire(key, { ttlMs }));
      expect(second).toBeNull();
      expect(await locks.tryAcquire(key, { ttlMs })).toBeNull();
      await first.release();
    });

    it("an explicit owner re-enters from another provider", async () => {
      const key = harness.key("explicit");
      const owner = `trace-${crypto.randomUUID()}`;
      const [a, b] = [await harness.provider(), await harness.provider()];
      const first = await a.acquire(key, { ttlMs, owner });
      const second = await b.acquire(key, { ttlMs, owner, waitMs: 0 });
      expect(second.holdCount).toBe(2);
      expect(second.fencingToken).toBe(first.fencingToken);
      await second.release();
      await first.release();
      expect(await a.inspect(key)).toBeNull();
    });

    it.skipIf(!options.crossProcess || options.reentryAcrossProcesses === false)("an explicit owner re-enters from another process", async () => {
      const key = harness.key("explicit-process");
      const owner = `trace-${crypto.randomUUID()}`;
      const locks = await harness.provider();
      const mine = await locks.acquire(key, { ttlMs, owner });
      const worker = harness.worker();
      await worker.next("ready");
      worker.run({ kind: "acquire-release", key, ttlMs, owner });
      const held = await worker.next("held");
      expect(held.holdCount).toBe(2);
      expect(held.fencingToken).toBe(mine.fencingToken);
      await worker.next("released");
      expect((await locks.inspect(key))?.holdCount).toBe(1);
      await mine.release();
    });

    it("re-entry never shortens the remaining TTL", async () => {
      const key = harness.key("ttl-max");
      const locks = await harness.provider();
      await runAsLockOwner(async () => {
        await locks.acquire(key, { ttlMs: ttlMs * 3, autoRenew: false });
        await locks.acquire(key, { ttlMs: options.ttlMs, autoRenew: false });
        const state = await locks.inspect(key);
        expect(state?.ttlRemainingMs ?? 0).toBeGreaterThan(ttlMs * 2);
      });
    });
  });
}
