import { LockError, LockErrorCode } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { expectLockError, queued } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 9. inspect and forceRelease agree with reality; close releases, aborts and leaves nothing running. */
export function describeInspectAndClose(options: ResolvedConformanceOptions): void {
  describe("inspect, forceRelease and close", () => {
    const harness = useHarness(options);
    const ttlMs = options.ttlMs * 10;

    it("inspect shows the holder, count, token and lease, never the owner secret", async () => {
      const key = harness.key("inspect");
      const provider = await harness.provider();
      expect(await provider.inspect(key)).toBeNull();
      const owner = `secret-${crypto.randomUUID()}`;
      const lock = await provider.acquire(key, { ttlMs, owner });
      await provider.acquire(key, { ttlMs, owner });
      const state = await (await harness.provider()).inspect(key);
      expect(state).toMatchObject({ key, holder: lock.holder, holdCount: 2, fencingToken: lock.fencingToken });
      expect(state?.ttlRemainingMs).toBeGreaterThan(0);
      expect(state?.ttlRemainingMs).toBeLessThanOrEqual(ttlMs);
      expect(JSON.stringify(state, (_, v) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(owner);
    });

    it("inspect counts the waiters in line, and an abandoned wait leaves no place behind", async () => {
      const key = harness.key("inspect-waiters");
      const observer = await harness.provider();
      await observer.acquire(key, { ttlMs });
      expect((await observer.inspect(key))?.waiters).toBe(0);
      const controller = new AbortController();
      const waits = [await harness.provider(), await harness.provider()].map((waiter) => waiter.acquire(key, { ttlMs, signal: controller.signal }));
      await queued(observer, key, 2);
      expect((await observer.inspect(key))?.waiters).toBe(options.capabilities.fifo ? 2 : 0);
      controller.abort(new Error("gave up"));
      await Promise.allSettled(waits);
      expect((await observer.inspect(key))?.waiters).toBe(0);
    });

    it("forceRelease frees a held key, the old holder learns it lost the lock", async () => {
      const key = harness.key("force");
      const [holderProvider, admin] = [await harness.provider(), await harness.provider()];
      const lock = await holderProvider.acquire(key, { ttlMs });
      expect(await admin.forceRelease(key)).toBe(true);
      expect(await admin.inspect(key)).toBeNull();
      expect(await admin.forceRelease(key)).toBe(false);
      const next = await admin.tryAcquire(key);
      expect(next).not.toBeNull();
      await expectLockError(lock.release(), LockErrorCode.LockLost);
      expect(lock.signal.aborted).toBe(true);
    });

    it("close releases held locks, aborts their signals, and is idempotent", async () => {
      const key = harness.key("close");
      const provider = await harness.provider();
      const lock = await provider.acquire(key, { ttlMs });
      await Promise.all([provider.close(), provider.close()]);
      expect(lock.signal.aborted).toBe(true);
      expect(LockError.is(lock.signal.reason, LockErrorCode.LockLost)).toBe(true);
      expect(await (await harness.provider()).inspect(key)).toBeNull();
    });

    it("close rejects pending waits instead of leaving them hanging", async () => {
      const key = harness.key("close-waiters");
      await (await harness.provider()).acquire(key, { ttlMs });
      const provider = await harness.provider();
      const rejected = expectLockError(provider.acquire(key), LockErrorCode.ProviderClosed);
      await queued(provider, key, 1);
      await provider.close();
      await rejected;
    });

    it.skipIf(options.workerUrl === undefined)("a process that acquires, releases and closes exits on its own (no timers or sockets left)", async () => {
      const worker = harness.worker();
      await worker.next("ready");
      worker.run({ kind: "acquire-release", key: harness.key("exit"), ttlMs });
      await worker.next("released");
      const exit = await Promise.race([worker.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 10_000))]);
      expect(exit).toEqual({ code: 0, signal: null });
    });
  });
}
