import { describe, expect, it } from "vitest";
import { LockErrorCode } from "../errors/error-codes.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "../provider/driver-lock-provider.js";

/** The memory driver without semaphores, as a backend that has not built them yet looks. */
function driverWithoutSemaphores() {
  const driver = new MemoryLockDriver(new MemoryLockStore());
  return Object.assign(Object.create(driver) as MemoryLockDriver, {
    capabilities: { ...driver.capabilities, semaphore: false },
    semaphores: undefined,
  });
}

describe("provider.semaphore", () => {
  it("throws UNSUPPORTED_OPERATION where the driver has no semaphores, after checking the input", () => {
    const provider = new DriverLockProvider(driverWithoutSemaphores());
    let error: unknown;
    try {
      provider.semaphore("jobs", { permits: 2 });
    } catch (caught) {
      error = caught;
    }
    expect(LockError.is(error, LockErrorCode.UnsupportedOperation)).toBe(true);
    expect(() => provider.semaphore("jobs", { permits: 0 })).toThrow(/options\.permits/);
  });

  it("refuses a second permit count for a name in one provider, and lets the same count open it again", () => {
    const provider = new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore()));
    provider.semaphore("jobs", { permits: 2 });
    expect(provider.semaphore("jobs", { permits: 2 }).permits).toBe(2);
    expect(() => provider.semaphore("jobs", { permits: 3 })).toThrow(/Invalid options\.permits: semaphore "jobs" was opened with 2 permits/);
  });

  it("a permit is not re-entrant: a second acquire in the same async context takes another permit", async () => {
    const provider = new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore()));
    const semaphore = provider.semaphore("pool", { permits: 2 });
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    expect(second.fencingToken).not.toBe(first.fencingToken);
    expect((await semaphore.inspect())?.inUse).toBe(2);
    expect(await semaphore.tryAcquire()).toBeNull();
    await provider.close();
  });
});
