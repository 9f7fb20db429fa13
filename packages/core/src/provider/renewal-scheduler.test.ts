import { describe, expect, it, vi } from "vitest";
import type { DriverRenewal } from "../driver/driver-attempt.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

class CountingDriver extends MemoryLockDriver {
  batches: number[] = [];
  override async renew(renewals: readonly DriverRenewal[]) {
    this.batches.push(renewals.length);
    return super.renew(renewals);
  }
}

describe("the watchdog", () => {
  it("renews many holds in a few batched calls instead of one call per hold", async () => {
    const driver = new CountingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    // 1 s leases, renewed every third of one: a lease of 300 ms was lost on a loaded CI machine when the event loop
    // stalled for longer than its last two thirds, which is the signal doing its job, not the watchdog failing.
    const locks = await Promise.all(Array.from({ length: 500 }, (_, i) => provider.acquire(`k${i}`, { ttlMs: 1_000 })));
    const renewed = () => driver.batches.reduce((sum, n) => sum + n, 0);
    await vi.waitFor(() => expect(renewed()).toBeGreaterThanOrEqual(500 * 2), { timeout: 10_000, interval: 20 });
    expect(driver.batches.length).toBeLessThan(renewed() / 50);
    expect(locks.every((lock) => !lock.signal.aborted)).toBe(true);
    await provider.close();
  });

  it("stops renewing a hold once it is released", async () => {
    const driver = new CountingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const lock = await provider.acquire("k", { ttlMs: 150 });
    await lock.release();
    // Time itself: two 150 ms leases, in which a watchdog still scheduled for the hold would have renewed it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(driver.batches).toEqual([]);
    await provider.close();
  });
});
