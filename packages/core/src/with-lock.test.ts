import { describe, expect, it } from "vitest";
import { MemoryLockProvider } from "./memory/memory-lock-provider.js";
import { MemoryLockStore } from "./memory/memory-lock-store.js";
import { withLock } from "./with-lock.js";

describe("withLock", () => {
  it("runs the function holding the key, hands it the lock's signal, and releases afterwards", async () => {
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    const result = await withLock(provider, "job", async (lock, signal) => {
      expect(signal).toBe(lock.signal);
      expect((await provider.inspect("job"))?.holdCount).toBe(1);
      return "done";
    });
    expect(result).toBe("done");
    expect(await provider.inspect("job")).toBeNull();
    await provider.close();
  });

  it("releases when the function throws, and rethrows its error", async () => {
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    await expect(
      withLock(provider, "job", () => {
        throw new Error("job failed");
      }),
    ).rejects.toThrow("job failed");
    expect(await provider.inspect("job")).toBeNull();
    await provider.close();
  });

  it("nested withLock on the same key re-enters instead of deadlocking", async () => {
    const provider = new MemoryLockProvider({ store: new MemoryLockStore() });
    const depth = await withLock(provider, "job", () => withLock(provider, "job", (inner) => inner.holdCount));
    expect(depth).toBe(2);
    await provider.close();
  });
});
