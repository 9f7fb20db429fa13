import { MemoryLockProvider, memoryLockStore } from "@distlock/core";
import { describeLockProvider } from "./index.js";

const store = memoryLockStore("conformance");

describeLockProvider({
  name: "memory (fifo)",
  create: () => new MemoryLockProvider({ store: "conformance" }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: "memory:",
  crossProcess: false,
  faults: { pause: () => store.setOutage(true), resume: () => store.setOutage(false) },
  ttlMs: 300,
  marginMs: 500,
});

describeLockProvider({
  name: "memory (notify)",
  create: () => new MemoryLockProvider({ store: "conformance", waitMode: "notify" }),
  capabilities: { fencing: true, fifo: false, semaphore: true },
  ttlMs: 300,
  marginMs: 500,
});

describeLockProvider({
  name: "memory (poll)",
  create: () => new MemoryLockProvider({ store: "conformance", waitMode: "poll" }),
  capabilities: { fencing: true, fifo: false, semaphore: true },
  ttlMs: 300,
  marginMs: 500,
});
