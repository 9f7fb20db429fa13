import { describeLockProvider } from "@distlock/conformance";
import { startPostgres } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startPostgres();
afterAll(() => server.close());
const url = `${server.url}${server.url.includes("?") ? "&" : "?"}mode=session`;

describeLockProvider({
  name: "postgres session (advisory locks)",
  create: () => new SqlLockProvider({ url }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: url,
  crossProcess: true,
  // A session lock belongs to its connection: another process cannot join the hold (see the README).
  reentryAcrossProcesses: false,
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});
