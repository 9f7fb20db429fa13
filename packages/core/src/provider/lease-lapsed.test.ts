import { describe, expect, it } from "vitest";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockDriver } from "../memory/memory-lock-driver.js";
import { MemoryLockStore } from "../memory/memory-lock-store.js";
import { DriverLockProvider } from "./driver-lock-provider.js";

/** A memory backend that frees the key on `leaseLapsed`, as one whose server keeps locks until told must, and records the calls. */
class LapseRecordingDriver extends MemoryLockDriver {
  readonly lapsed: string[] = [];
  readonly #waiting = new Map<string, () => void>();

  leaseLapsed(key: string, ownerSecret: string): void {
    this.lapsed.push(`${key}:${ownerSecret}`);
    void this.forceRelease(key).then(() => this.#waiting.get(key)?.());
  }

  /** Resolves once `key`'s lapse has been reported and the key freed. */
  lapseOf(key: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(key, resolve));
  }
}

describe("LockDriver.leaseLapsed", () => {
  it("is told once, after the holder's signal aborted, when a lease passes without renewal, even with nobody listening", async () => {
    const driver = new LapseRecordingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const owner = "owner-secret-for-the-lapse-test-0123456789";
    const lapsed = driver.lapseOf("k");
    const lock = await provider.acquire("k", { ttlMs: 100, autoRenew: false, owner });
    await lapsed;
    expect(driver.lapsed).toEqual([`k:${owner}`]);
    expect(LockError.is(lock.signal.reason, "LOCK_LOST")).toBe(true);
    await expect(lock.release()).rejects.toMatchObject({ code: "LOCK_LOST" });
    expect(driver.lapsed).toHaveLength(1);
    await provider.close();
  });

  it("is not told for a hold released in time, nor for one the watchdog keeps renewed", async () => {
    const driver = new LapseRecordingDriver(new MemoryLockStore());
    const provider = new DriverLockProvider(driver);
    const released = await provider.acquire("released", { ttlMs: 100, autoRenew: false });
    await released.release();
    const renewed = await provider.acquire("renewed", { ttlMs: 100 });
    // Its deadline is the latest of the three: once it lapses, the others' deadlines have long passed.
    const lapsed = driver.lapseOf("witness");
    await provider.acquire("witness", { ttlMs: 400, autoRenew: false });
    await lapsed;
    expect(driver.lapsed.map((call) => call.split(":")[0])).toEqual(["witness"]);
    expect(renewed.signal.aborted).toBe(false);
    await renewed.release();
    await provider.close();
  });
});
