import { describe, expect, it } from "vitest";
import type { DriverAcquireRequest, DriverWait } from "../driver/driver-attempt.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend with native waiting whose caller gives up just after the wait was granted, before core reads the grant. */
class AbortAfterGrantDriver extends MemoryLockDriver {
  constructor(
    store: MemoryLockStore,
    readonly giveUp: () => void,
  ) {
    super(store, "fifo");
    const wait = this.acquire as NonNullable<MemoryLockDriver["acquire"]>;
    Object.assign(this, {
      acquire: async (request: DriverAcquireRequest, options: DriverWait) => {
        const granted = await wait(request, options);
        this.giveUp();
        return granted;
      },
    });
  }
}

describe("a wait aborted after the driver granted it", () => {
  it("rejects with the signal's reason and gives the grant back before rejecting", async () => {
    const store = new MemoryLockStore();
    const controller = new AbortController();
    const reason = new Error("gave up");
    const provider = new DriverLockProvider(new AbortAfterGrantDriver(store, () => controller.abort(reason)));
    const holder = await provider.acquire("k", { owner: "holder" });
    const waiting = provider.acquire("k", { signal: controller.signal });
    await holder.release();
    await expect(waiting).rejects.toBe(reason);
    expect(store.inspect("k")).toBeNull();
    await provider.close();
  });
});
