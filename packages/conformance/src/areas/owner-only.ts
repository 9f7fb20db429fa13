import { LockErrorCode } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { aborted, elapse, expectLockError } from "../expectations.js";
import { useHarness } from "../harness.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** 3. Only the owner can release or renew, checked atomically on the server. */
export function describeOwnerOnly(options: ResolvedConformanceOptions): void {
  describe("owner-only release and renew", () => {
    const harness = useHarness(options);
    const { ttlMs, marginMs } = options;

    async function expiredThenTakenOver() {
      const key = harness.key("stale");
      const [stale, fresh] = [await harness.provider(), await harness.provider()];
      const staleLock = await stale.acquire(key, { ttlMs, autoRenew: false });
      await aborted(staleLock.signal);
      const freshLock = await fresh.acquire(key, { ttlMs: ttlMs * 10, waitMs: ttlMs + marginMs });
      return { key, stale, fresh, staleLock, freshLock };
    }

    it("release by a stale owner leaves the new holder's lock intact", async () => {
      const { key, fresh, staleLock, freshLock } = await expiredThenTakenOver();
      await expectLockError(staleLock.release(), LockErrorCode.LockLost);
      const state = await fresh.inspect(key);
      expect(state?.holder).toBe(freshLock.holder);
      expect(state?.fencingToken).toBe(freshLock.fencingToken);
      expect(await (await harness.provider()).tryAcquire(key)).toBeNull();
      expect(freshLock.signal.aborted).toBe(false);
      await freshLock.release();
      expect(await fresh.inspect(key)).toBeNull();
    });

    it("renew by a stale owner fails with LOCK_LOST and does not touch the new holder's lease", async () => {
      const { key, fresh, staleLock, freshLock } = await expiredThenTakenOver();
      const before = await fresh.inspect(key);
      await expectLockError(staleLock.renew(ttlMs * 100), LockErrorCode.LockLost);
      const after = await fresh.inspect(key);
      expect(after?.holder).toBe(freshLock.holder);
      expect(after?.ttlRemainingMs ?? 0).toBeLessThanOrEqual(before?.ttlRemainingMs ?? 0);
    });

    it("another owner cannot take or free a held key, and the holder's release frees it", async () => {
      const key = harness.key("owned");
      const [owner, other] = [await harness.provider(), await harness.provider()];
      const lock = await owner.acquire(key, { ttlMs: ttlMs * 10 });
      expect(await other.tryAcquire(key)).toBeNull();
      expect(await other.tryAcquire(key, { owner: "a-guess-at-the-owner" })).toBeNull();
      await lock.release();
      const next = await other.tryAcquire(key);
      expect(next?.holdCount).toBe(1);
    });

    it("release is idempotent after success and renew after release reports the hold gone", async () => {
      const key = harness.key("idempotent");
      const lock = await (await harness.provider()).acquire(key, { ttlMs: ttlMs * 10 });
      await lock.release();
      await lock.release();
      await expectLockError(lock.renew(), LockErrorCode.LockLost);
    });

    it("a lease renewed by its owner outlives its original TTL", async () => {
      const key = harness.key("renewed");
      const [owner, other] = [await harness.provider(), await harness.provider()];
      const lock = await owner.acquire(key, { ttlMs, autoRenew: false });
      await elapse(ttlMs / 2);
      await lock.renew(ttlMs * 4);
      await elapse(ttlMs);
      expect(await other.tryAcquire(key)).toBeNull();
      expect(lock.signal.aborted).toBe(false);
      await lock.release();
    });
  });
}
