import { afterEach, describe, expect, it } from "vitest";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import type { LockProvider } from "../types.js";
import { registerLockBackend } from "./backend-registry.js";
import { createLockProvider } from "./create-lock-provider.js";
import { DEFAULT_LOCK_URL, resolveLockConfig } from "./lock-config.js";

const opened: LockProvider[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (error: unknown) => error as LockError & { field: string },
  );
}

describe("createLockProvider", () => {
  it("builds a memory provider from a URL, and providers on one store exclude each other", async () => {
    const a = await createLockProvider("memory:factory-test");
    const b = await createLockProvider({ url: "memory:factory-test", holderLabel: "b" });
    opened.push(a, b);
    expect(a.backend).toBe("memory");
    const lock = await a.acquire("k");
    expect(await b.tryAcquire("k")).toBeNull();
    await lock.release();
    expect((await b.tryAcquire("k"))?.holder).toMatch(/:b$/);
  });

  it("falls back to DISTLOCK_URL, then to the embedded SQLite file", () => {
    expect(resolveLockConfig(undefined, { DISTLOCK_URL: "redis://cache:6379" }).backend).toBe("redis");
    expect(resolveLockConfig(undefined, {}).url?.path).toBe(DEFAULT_LOCK_URL.slice("sqlite:".length));
  });

  it("rejects an unknown backend, naming the field", async () => {
    // Not a backend that registers itself on import (zookeeper, nats): test files share their worker's modules.
    const error = await rejection(createLockProvider({ backend: "no-such-backend" }));
    expect(LockError.is(error, "INVALID_CONFIG")).toBe(true);
    expect(error?.field).toBe("backend");
  });

  it("rejects a backend that contradicts the URL, a non-object config and an unknown memory option", async () => {
    expect((await rejection(createLockProvider({ backend: "etcd", url: "redis://h" })))?.field).toBe("config.backend");
    expect((await rejection(createLockProvider({ url: 5 } as never)))?.field).toBe("config.url");
    expect((await rejection(createLockProvider([] as never)))?.field).toBe("config");
    expect((await rejection(createLockProvider({ url: "memory:", poolSize: 3 })))?.field).toBe("config.poolSize");
  });

  it("uses a registered backend instead of importing a package", async () => {
    registerLockBackend("custom-test", (config) => new MemoryLockProvider({ store: "custom", holderLabel: config.holderLabel }));
    const provider = await createLockProvider({ backend: "custom-test", holderLabel: "mine" });
    opened.push(provider);
    expect((await provider.acquire("k")).holder).toMatch(/:mine$/);
  });
});
