import { describe, expect, it } from "vitest";
import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { MAX_PERMITS, MAX_READERS } from "../options/defaults.js";
import { runAsLockOwner } from "../owner/owner-context.js";
import { DriverLockProvider } from "../provider/driver-lock-provider.js";

/** The memory driver without semaphores, as a backend that has not built them yet looks. */
function driverWithoutSemaphores() {
  const driver = new MemoryLockDriver(new MemoryLockStore());
  return Object.assign(Object.create(driver) as MemoryLockDriver, { capabilities: { ...driver.capabilities, semaphore: false }, semaphores: undefined });
}

describe("provider.readWriteLock", () => {
  it("follows capabilities.semaphore, and throws UNSUPPORTED_OPERATION without semaphores, after checking the name", () => {
    const provider = new DriverLockProvider(driverWithoutSemaphores());
    expect(provider.capabilities.readWriteLock).toBe(false);
    expect(new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore())).capabilities.readWriteLock).toBe(true);
    let error: unknown;
    try {
      provider.readWriteLock("orders");
    } catch (caught) {
      error = caught;
    }
    expect(LockError.is(error, LockErrorCode.UnsupportedOperation)).toBe(true);
    expect((error as Error).message).toContain("readWriteLock");
    expect(() => provider.readWriteLock("")).toThrow(/Invalid name/);
  });

  it("sits on a semaphore of MAX_READERS permits named rwlock:<name>, which provider.semaphore refuses to open", async () => {
    const provider = new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore()));
    expect(MAX_READERS).toBeLessThanOrEqual(MAX_PERMITS);
    const write = await provider.readWriteLock("orders").write.acquire();
    expect(() => provider.semaphore("rwlock:orders", { permits: MAX_READERS })).toThrow(/Invalid name: must not start with "rwlock:"/);
    expect(await provider.semaphore("orders", { permits: 1 }).tryAcquire()).not.toBeNull();
    await write.release();
    await provider.close();
  });

  it("does not re-enter a lost grant: the owner's next acquire asks for a grant of its own, and the lost holds still report LOCK_LOST", async () => {
    const store = new MemoryLockStore();
    const provider = new DriverLockProvider(new MemoryLockDriver(store));
    const lock = provider.readWriteLock("report");
    await runAsLockOwner(async () => {
      const lost = await lock.write.acquire({ ttlMs: 50 });
      store.setOutage(true);
      await new Promise((resolve) => lost.signal.addEventListener("abort", resolve));
      store.setOutage(false);
      const fresh = await lock.read.acquire({ ttlMs: 10_000, waitMs: 1000 });
      expect(fresh.holdCount).toBe(1);
      expect(fresh.fencingToken).not.toBe(lost.fencingToken);
      await expect(lost.release()).rejects.toMatchObject({ code: "LOCK_LOST" });
      await fresh.release();
    });
    expect(await lock.inspect()).toBeNull();
    await provider.close();
  });
});
