import { describeLockProvider } from "@distlock/conformance";
import { startPostgres } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startPostgres();
afterAll(() => server.close());

describeLockProvider({
  name: "postgres (polling)",
  create: () => new SqlLockProvider({ url: server.url, listen: false }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  ttlMs: 1000,
  marginMs: 1000,
});
