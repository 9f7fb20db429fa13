import { describeLockProvider } from "@distlock/conformance";
import { startMariadb } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { describeKeySets } from "../../test/key-set-tests.js";
import { describeSqlSemaphore } from "../../test/semaphore-tests.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startMariadb();
afterAll(() => server.close());

describeLockProvider({
  name: "mariadb",
  create: () => new SqlLockProvider({ url: server.userUrl }),
  capabilities: { fencing: true, fifo: true, semaphore: true },
  workerUrl: server.userUrl,
  crossProcess: true,
  faults: { pause: () => server.pause(), resume: () => server.resume() },
  ttlMs: 1000,
  marginMs: 1000,
});

describeSqlSemaphore("mariadb", server.userUrl);
describeKeySets("mysql", server.userUrl);
