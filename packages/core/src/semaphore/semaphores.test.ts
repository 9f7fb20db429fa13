import { describe, expect, it } from "vitest";
import type { SemaphoreDriver } from "../driver/semaphore-driver.js";
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

/** The memory driver whose semaphores count first attempts and say a waiter of them waits on the names in `watching`. */
function watchingSemaphores() {
  const driver = new MemoryLockDriver(new MemoryLockStore());
  const inner = driver.semaphores;
  const counted = { firstAttempts: 0, watching: new Set<string>() };
  const semaphores: SemaphoreDriver = {
    ...inner,
    tryAcquire: (request) => {
      counted.firstAttempts += 1;
      return inner.tryAcquire(request);
    },
    acquire: inner.acquire?.bind(inner),
    isWatching: (name) => counted.watching.has(name),
  };
  return { driver: Object.assign(Object.create(driver) as MemoryLockDriver, { semaphores }), counted };
}

describe("provider.semaphore", () => {
  it("an acquire skips the first attempt while the driver says a waiter of the semaphore waits, and takes a free permit in its wait", async () => {
    const { driver, counted } = watchingSemaphores();
    const provider = new DriverLockProvider(driver);
    const semaphore = provider.semaphore("pool", { permits: 2 });
    await (await semaphore.acquire()).release();
    expect(counted.firstAttempts).toBe(1);
    counted.watching.add("pool");
    const permit = await semaphore.acquire();
    expect(counted.firstAttempts).toBe(1);
    expect((await semaphore.inspect())?.inUse).toBe(1);
    await permit.release();
    // tryAcquire never waits, so it always makes its attempt.
    await (await semaphore.tryAcquire())?.release();
    expect(counted.firstAttempts).toBe(2);
    await provider.close();
  });

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
