import "reflect-metadata";
import { Container } from "inversify";
import { describe, expect, it } from "vitest";
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

  it("uses a Symbol.for identifier so separate copies of the package agree", () => {
    expect(LOCK_PROVIDER).toBe(Symbol.for("@distlock/core/LockProvider"));
  });
});
