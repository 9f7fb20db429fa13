import { DriverLockProvider, type DriverLockProviderOptions } from "../provider/driver-lock-provider.js";
import { MemoryLockDriver, type MemoryWaitMode } from "./memory-lock-driver.js";
import { MemoryLockStore } from "./memory-lock-store.js";

const stores = new Map<string, MemoryLockStore>();

/** Options of the in-memory provider. */
export interface MemoryLockProviderOptions extends DriverLockProviderOptions {
  /** Providers naming the same store exclude each other (within this process only). @default "default" */
  store?: string | MemoryLockStore;
  /** How waiters wait. @default "fifo" */
  waitMode?: MemoryWaitMode;
}

/** The process-wide memory store of that name, created on first use. */
export function memoryLockStore(name = "default"): MemoryLockStore {
  let store = stores.get(name);
  if (store === undefined) {
    store = new MemoryLockStore();
    stores.set(name, store);
  }
  return store;
}

/** A lock provider whose "server" lives in this process: the reference implementation and a test double for apps. */
export class MemoryLockProvider extends DriverLockProvider {
  constructor(options: MemoryLockProviderOptions = {}) {
    const store = typeof options.store === "object" ? options.store : memoryLockStore(options.store);
    super(new MemoryLockDriver(store, options.waitMode), options);
  }
}
