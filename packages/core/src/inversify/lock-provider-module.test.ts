import "reflect-metadata";
import { Container } from "inversify";
import { describe, expect, it } from "vitest";
import { registerLockBackend } from "../config/backend-registry.js";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import type { LockProvider } from "../types.js";
import { LOCK_PROVIDER, lockProviderModule } from "./lock-provider-module.js";

describe("lockProviderModule", () => {
  it("binds one provider from config and closes it when the container unbinds it", async () => {
    const container = new Container();
    await container.load(lockProviderModule("memory:di-test"));
    const provider = await container.getAsync<LockProvider>(LOCK_PROVIDER);
    expect(await container.getAsync<LockProvider>(LOCK_PROVIDER)).toBe(provider);
    expect(provider.backend).toBe("memory");
    const lock = await provider.acquire("k");
    await container.unbindAllAsync();
    expect(lock.signal.aborted).toBe(true);
    await expect(provider.acquire("k")).rejects.toMatchObject({ code: "PROVIDER_CLOSED" });
  });

  it("reaches a registered backend by its own URL scheme", async () => {
    registerLockBackend("di-probe", (config) => new MemoryLockProvider({ store: `di-probe:${config.url?.path}` }), { schemes: ["di-probe"] });
    const container = new Container();
    await container.load(lockProviderModule("di-probe://h1:1,h2:2/shared"));
    const provider = await container.getAsync<LockProvider>(LOCK_PROVIDER);
    const other = new MemoryLockProvider({ store: "di-probe:shared" });
    const lock = await provider.acquire("k");
    expect(await other.tryAcquire("k")).toBeNull();
    await lock.release();
    await other.close();
    await container.unbindAllAsync();
  });

  it("uses a Symbol.for identifier so separate copies of the package agree", () => {
    expect(LOCK_PROVIDER).toBe(Symbol.for("@distlock/core/LockProvider"));
  });
});
