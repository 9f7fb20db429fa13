import { describeLockProvider } from "@distlock/conformance";
import { startPostgres } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { SqlLockProvider } from "../sql-lock-provider.js";

// Each way of reaching PostgreSQL runs the suite in a file of its own, so that they run side by side.
const server = await startPostgres();
afterAll(() => server.close());

describeLockProvider({
  name: "postgres (LISTEN/NOTIFY)",
  create: () => new SqlLockProvider({ url: server.url }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: server.url,
  crossProcess: true,
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});
