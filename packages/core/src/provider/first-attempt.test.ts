import { describe, expect, it } from "vitest";
import type { DriverAcquireRequest } from "../driver/lock-driver.js";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend whose acquire answers arrive late, like a server behind a slow or saturated link. */
class SlowAcquireDriver extends MemoryLockDriver {
  constructor(
    store: MemoryLockStore,
    readonly delayMs: number,
  ) {
    super(store);
  }

  override async tryAcquire(request: DriverAcquireRequest) {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.tryAcquire(request);
  }
}

async function codeOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return LockError.is(error) ? error.code : error;
}

describe("the first attempt of acquire", () => {
  it("is bounded by waitMs, and a grant that arrives later is released again", async () => {
    const store = new MemoryLockStore();
    const provider = new DriverLockProvider(new SlowAcquireDriver(store, 300));
    const started = performance.now();
    expect(await codeOf(provider.acquire("k", { waitMs: 50 }))).toBe("LOCK_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(250);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(store.inspect("k")).toBeNull();
    await provider.close();
  });

  it("is cut short by the caller's signal and by close()", async () => {
    const store = new MemoryLockStore();
    const provider = new DriverLockProvider(new SlowAcquireDriver(store, 300));
    const controller = new AbortController();
    const reason = new Error("gave up");
    const aborted = provider.acquire("a", { signal: controller.signal });
    const tried = provider.tryAcquire("b", { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(aborted).rejects.toBe(reason);
    await expect(tried).rejects.toBe(reason);
    const closing = provider.acquire("c");
    setTimeout(() => void provider.close(), 20);
    expect(await codeOf(closing)).toBe("PROVIDER_CLOSED");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect([store.inspect("a"), store.inspect("b"), store.inspect("c")]).toEqual([null, null, null]);
  });

  it("with waitMs 0 is one attempt that is allowed to finish", async () => {
    const provider = new DriverLockProvider(new SlowAcquireDriver(new MemoryLockStore(), 50));
    expect((await provider.acquire("k", { waitMs: 0 })).holdCount).toBe(1);
    await provider.close();
  });
});
