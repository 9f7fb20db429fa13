import { describe, expect, it } from "vitest";
import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { monotonicNow } from "../time/monotonic.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** Blocks the event loop, as a GC pause or SIGSTOP would: no timer can run meanwhile. */
function freeze(ms: number): void {
  const until = monotonicNow() + ms;
  while (monotonicNow() < until) {}
}

/** A memory backend that reports its grants as if their lease had started `ageMs` earlier (an answer that came late). */
class BackdatedGrantDriver extends MemoryLockDriver {
  constructor(
    store: MemoryLockStore,
    readonly ageMs: number,
  ) {
    super(store);
  }

  override async tryAcquire(request: DriverAcquireRequest) {
    const result = await super.tryAcquire(request);
    return result.acquired ? { ...result, grantedAt: monotonicNow() - this.ageMs } : result;
  }
}

describe("lease edges", () => {
  it("lock.signal reads as aborted once the deadline passed, even before the deadline timer could run", async () => {
    const provider = new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore()));
    const lock = await provider.acquire("k", { ttlMs: 100, autoRenew: false });
    expect(lock.signal.aborted).toBe(false);
    freeze(150);
    expect(lock.signal.aborted).toBe(true);
    expect(LockError.is(lock.signal.reason, "LOCK_LOST")).toBe(true);
    await provider.close();
  });

  it("a multi-key set's signal reads as aborted once a lock's deadline passed, even before the deadline timer could run", async () => {
    const provider = new DriverLockProvider(new MemoryLockDriver(new MemoryLockStore()));
    const locks = await provider.acquireAll(["a", "b"], { ttlMs: 100, autoRenew: false });
    expect(locks.signal.aborted).toBe(false);
    freeze(150);
    expect(locks.signal.aborted).toBe(true);
    expect(LockError.is(locks.signal.reason, "LOCK_LOST")).toBe(true);
    await provider.close();
  });

  it("a grant already past its deadline is renewed before acquire hands it out", async () => {
    const store = new MemoryLockStore();
    const provider = new DriverLockProvider(new BackdatedGrantDriver(store, 5_000));
    const lock = await provider.acquire("k", { ttlMs: 1_000 });
    expect(lock.signal.aborted).toBe(false);
    expect(lock.remainingMs()).toBeGreaterThan(900);
    await provider.close();
  });

  it("a stale grant that cannot be renewed is released and not handed out", async () => {
    const store = new MemoryLockStore();
    const provider = new DriverLockProvider(new BackdatedGrantDriver(store, 5_000));
    const original = store.renew.bind(store);
    store.renew = (renewals) => renewals.map(() => false);
    expect(await provider.tryAcquire("k", { ttlMs: 1_000 })).toBeNull();
    expect(store.inspect("k")).toBeNull();
    store.renew = original;
    await provider.close();
  });

  it("a release that fails stops the watchdog, so the key frees itself by its TTL", async () => {
    const store = new MemoryLockStore();
    const [holder, other] = [new DriverLockProvider(new MemoryLockDriver(store)), new DriverLockProvider(new MemoryLockDriver(store))];
    const lock = await holder.acquire("k", { ttlMs: 150 });
    store.setOutage(true);
    const error = await lock.release().catch((e: unknown) => e);
    expect(LockError.is(error, "BACKEND_UNAVAILABLE")).toBe(true);
    store.setOutage(false);
    // Time itself: the 150 ms lease runs out on the store, with no watchdog left to renew it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await other.tryAcquire("k"))?.holdCount).toBe(1);
    await Promise.all([holder.close(), other.close()]);
  });
});
