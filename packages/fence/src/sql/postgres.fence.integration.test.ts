import { SqlLockProvider } from "@distlock/sql";
import { startPostgres } from "@distlock/test-servers";
import { PostgresDialect } from "kysely";
import pg from "pg";
import { kyselyWithLog } from "../../test/kysely-with-log.js";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("postgres", async () => {
  const server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on("error", () => undefined); // an idle client told of the server's shutdown at the end
  const { db, statements } = kyselyWithLog(new PostgresDialect({ pool }));
  const locks = new SqlLockProvider({ url: server.url });
  const rivalLocks = new SqlLockProvider({ url: server.url });
  return {
    db,
    locks,
    rivalLocks,
    statements,
    close: async () => {
      await locks.close();
      await rivalLocks.close();
      await db.destroy();
      await server.close();
    },
  };
});
