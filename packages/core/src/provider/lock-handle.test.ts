import { describe, expect, it } from "vitest";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend whose next `failures` releases fail before reaching the store, as a dropped connection would. */
class FlakyReleaseDriver extends MemoryLockDriver {
  failures = 0;
  releases = 0;

  override async release(key: string, ownerSecret: string) {
    this.releases += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("connection dropped");
    }
    return super.release(key, ownerSecret);
  }
}

describe("a lock handle whose release fails", () => {
  it("lets go here at once, and a second release() asks the server again and frees the key", async () => {
    const store = new MemoryLockStore();
    const driver = new FlakyReleaseDriver(store);
    const provider = new DriverLockProvider(driver);
    const lock = await provider.acquire("k");
    driver.failures = 1;
    await expect(lock.release()).rejects.toMatchObject({ code: "BACKEND_UNAVAILABLE" });
    // Let go locally: the watchdog no longer keeps it, though the server still shows it held.
    expect((await provider.inspect("k"))?.holdCount).toBe(1);
    await lock.release();
    expect(driver.releases).toBe(2);
    expect(await provider.inspect("k")).toBeNull();
    // Released for good: a third call answers as the second did, without another server call.
    await lock.release();
    expect(driver.releases).toBe(2);
    await provider.close();
  });

  it("rejects with LOCK_LOST when the server no longer shows the hold, and may be asked again", async () => {
    const store = new MemoryLockStore();
    const driver = new FlakyReleaseDriver(store);
    const provider = new DriverLockProvider(driver);
    const lock = await provider.acquire("k");
    await provider.forceRelease("k");
    await expect(lock.release()).rejects.toMatchObject({ code: "LOCK_LOST" });
    await expect(lock.release()).rejects.toMatchObject({ code: "LOCK_LOST" });
    expect(driver.releases).toBe(2);
    await provider.close();
  });
});
