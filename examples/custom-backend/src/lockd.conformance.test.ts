import { describeLockProvider } from "@distlock/conformance";
import { DEFAULT_LOCKD_LOCK_OPTIONS, LockdLockProvider, startLockdServer } from "@distlock-example/lockd";
import { afterAll } from "vitest";

// Imports by package name only: this file also runs in a project that installs the packed packages.
const server = await startLockdServer();
afterAll(() => server.stop());

describeLockProvider({
  name: "lockd",
  create: () => new LockdLockProvider({ url: server.url }),
  capabilities: { fencing: true, fifo: false, listing: true, semaphore: true },
  // Worker processes build their provider from this URL, after loading the backend module through DISTLOCK_BACKENDS.
  workerUrl: server.url,
  backendModule: "@distlock-example/lockd",
  config: { construct: (options) => new LockdLockProvider({ url: server.url, ...options }), defaults: DEFAULT_LOCKD_LOCK_OPTIONS },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
});
