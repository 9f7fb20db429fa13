import { describeLockProvider } from "@distlock/conformance";
import { startPostgres } from "@distlock/test-servers";
import pg from "pg";
import { afterAll } from "vitest";
import { SqlLockProvider } from "./sql-lock-provider.js";

const server = await startPostgres();
const pool = new pg.Pool({ connectionString: server.url, max: 20, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
pool.on("error", () => undefined);
afterAll(async () => {
  await pool.end();
  await server.close();
});

describeLockProvider({
  name: "postgres (LISTEN/NOTIFY)",
  create: () => new SqlLockProvider({ url: server.url }),
  capabilities: { fencing: true, fifo: true },
  workerUrl: server.url,
  crossProcess: true,
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});

describeLockProvider({
  name: "postgres (polling)",
  create: () => new SqlLockProvider({ url: server.url, listen: false }),
  capabilities: { fencing: true, fifo: true },
  ttlMs: 1000,
  marginMs: 1000,
});

describeLockProvider({
  name: "postgres (prepared statements, caller's pool)",
  create: () => new SqlLockProvider({ pgPool: pool, preparedStatements: true, purgeIntervalMs: 0 }),
  capabilities: { fencing: true, fifo: true },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});
