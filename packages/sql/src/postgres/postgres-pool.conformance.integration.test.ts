import { describeLockProvider } from "@distlock/conformance";
import { postgresWithPool } from "../../test/postgres-with-pool.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const { server, pool } = await postgresWithPool();

describeLockProvider({
  name: "postgres (prepared statements, caller's pool)",
  create: () => new SqlLockProvider({ pgPool: pool, preparedStatements: true, purgeIntervalMs: 0 }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});
