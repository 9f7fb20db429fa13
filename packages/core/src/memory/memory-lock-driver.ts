import type { DriverAcquireRequest, DriverGranted, DriverRenewal, DriverWait } from "../driver/driver-attempt.js";
import type { LockDriver, ReleaseWatch } from "../driver/lock-driver.js";
import type { SemaphoreDriver } from "../driver/semaphore-driver.js";
import { Latch } from "../time/latch.js";
import type { LockCapabilities } from "../types.js";
import type { MemoryLockStore } from "./memory-lock-store.js";
import type { MemorySemaphoreStore } from "./memory-semaphore-store.js";

/**
 * How memory waiters wait: "fifo" queues on the store (the reference behaviour); "notify" and "poll"
 * exercise the generic waiting paths that drivers without server queues use.
 */
export type MemoryWaitMode = "fifo" | "notify" | "poll";

/** The in-memory backend's driver over a shared `MemoryLockStore`. */
export class MemoryLockDriver implements LockDriver {
  readonly backend = "memory";
  readonly capabilities: LockCapabilities;
  readonly acquire?: (request: DriverAcquireRequest, wait: DriverWait) => Promise<DriverGranted>;
  readonly watchReleases?: (key: string) => Promise<ReleaseWatch>;
  readonly semaphores: SemaphoreDriver;
  readonly #store: MemoryLockStore;

  constructor(store: MemoryLockStore, waitMode: MemoryWaitMode = "fifo") {
    this.#store = store;
    this.capabilities = { fencing: true, fifo: waitMode === "fifo", serverClock: true, minTtlMs: 1, ttlGranularityMs: 1, listing: true, semaphore: true };
    this.semaphores = memorySemaphores(store.semaphores);
    if (waitMode === "fifo") this.acquire = async (request, wait) => store.acquire(request, wait.signal);
    if (waitMode === "notify") this.watchReleases = async (key) => watchStoreReleases(store, key);
  }

  async tryAcquire(request: DriverAcquireRequest) {
    return this.#store.tryAcquire(request);
  }

  async tryAcquireAll(requests: readonly DriverAcquireRequest[]) {
    return this.#store.tryAcquireAll(requests);
  }

  async releaseAll(keys: readonly string[], ownerSecret: string) {
    return keys.map((key) => this.#store.release(key, ownerSecret));
  }

  /** Passes a contended set in a row at most this often, as the Redis driver's default `localPasses`. */
  readonly setPasses = 16;

  async passAll(requests: readonly DriverAcquireRequest[], fromSecret: string) {
    return this.#store.passAll(requests, fromSecret);
  }

  async renew(renewals: readonly DriverRenewal[]) {
    return this.#store.renew(renewals);
  }

  async release(key: string, ownerSecret: string) {
    return this.#store.release(key, ownerSecret);
  }

  async inspect(key: string) {
    return this.#store.inspect(key);
  }

  async list(prefix: string) {
    return this.#store.list(prefix);
  }

  async forceRelease(key: string) {
    return this.#store.forceRelease(key);
  }

  async close(): Promise<void> {}
}

function watchStoreReleases(store: MemoryLockStore, key: string): ReleaseWatch {
  const released = new Latch("spent-by-wait");
  const unsubscribe = store.onRelease(key, () => released.open());
  return {
    next: (timeoutMs, signal) => released.wait(timeoutMs, signal),
    close: unsubscribe,
  };
}

/** The store's semaphores as a driver; they always wait in the store's FIFO line, whatever the locks' wait mode. */
function memorySemaphores(store: MemorySemaphoreStore): SemaphoreDriver {
  return {
    tryAcquire: async (request) => store.tryAcquire(request),
    acquire: async (request, wait) => store.acquire(request, wait.signal),
    renew: async (renewals) => store.renew(renewals),
    release: async (name, ownerSecret) => store.release(name, ownerSecret),
    inspect: async (name) => store.inspect(name),
  };
}
