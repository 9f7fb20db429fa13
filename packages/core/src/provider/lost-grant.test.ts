import { describe, expect, it } from "vitest";
import type { DriverAcquireRequest } from "../driver/driver-attempt.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend whose grants carry a loss signal per key, as a session-bound backend's do (`DriverGranted.lost`). */
class SessionLikeDriver extends MemoryLockDriver {
  readonly sessions = new Map<string, AbortController>();

  override async tryAcquire(request: DriverAcquireRequest) {
    const result = await super.tryAcquire(request);
    if (!result.acquired) return result;
    const session = this.sessions.get(request.key) ?? new AbortController();
    this.sessions.set(request.key, session);
    return { ...result, lost: session.signal };
  }
}

describe("a grant that carries its loss signal", () => {
  it("aborts the lock's signal at once when the driver says the server-side hold is gone, long before the lease ends", async () => {
    const driver = new SessionLikeDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const lock = await provider.acquire("k", { ttlMs: 60_000 });
    const why = new Error("the session closed");
    // The session ends: the server frees what it held, and the driver hears of it.
    await driver.forceRelease("k");
    driver.sessions.get("k")?.abort(why);
    expect(lock.signal.aborted).toBe(true);
    expect(LockError.is(lock.signal.reason, "LOCK_LOST")).toBe(true);
    expect((lock.signal.reason as Error).cause).toBe(why);
    expect(lock.remainingMs()).toBe(0);
    await expect(lock.release()).rejects.toMatchObject({ code: "LOCK_LOST" });
    await provider.close();
  });

  it("follows one signal across re-entries, and a hold released before the loss is not touched by it", async () => {
    const driver = new SessionLikeDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const owner = "owner-secret-for-this-test-0123456789";
    const first = await provider.acquire("k", { owner });
    const second = await provider.acquire("k", { owner });
    expect(second.holdCount).toBe(2);
    await second.release();
    await first.release();
    driver.sessions.get("k")?.abort(new Error("too late"));
    expect(first.signal.aborted).toBe(false);
    const next = await provider.tryAcquire("k");
    expect(next).not.toBeNull();
    await provider.close();
  });
});
