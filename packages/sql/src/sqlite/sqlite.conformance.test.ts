import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeLockProvider } from "@distlock/conformance";
import { afterAll } from "vitest";
import { describeKeySets } from "../../test/key-set-tests.js";
import { describeSqlSemaphore } from "../../test/semaphore-tests.js";
import { DEFAULT_SQL_LOCK_OPTIONS } from "../options/sql-lock-provider-options.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const dir = mkdtempSync(join(tmpdir(), "distlock-sqlite-"));
const url = `sqlite:${join(dir, "locks.sqlite")}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeLockProvider({
  name: "sqlite",
  create: () => new SqlLockProvider({ url }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: url,
  config: { construct: (options) => new SqlLockProvider({ url, ...options }), defaults: DEFAULT_SQL_LOCK_OPTIONS },
  crossProcess: true,
  ttlMs: 1000,
  marginMs: 1000,
});

describeSqlSemaphore("sqlite", url);
describeKeySets("sqlite", url);
