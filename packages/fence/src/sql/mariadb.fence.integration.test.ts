import { SqlLockProvider } from "@distlock/sql";
import { startMariadb } from "@distlock/test-servers";
import { MysqlDialect } from "kysely";
import { createPool } from "mysql2";
import { kyselyWithLog } from "../../test/kysely-with-log.js";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("mariadb", async () => {
  const server = await startMariadb();
  const { db, statements } = kyselyWithLog(new MysqlDialect({ pool: createPool({ uri: server.userUrl, connectionLimit: 4 }) }));
  const locks = new SqlLockProvider({ url: server.userUrl });
  const rivalLocks = new SqlLockProvider({ url: server.userUrl });
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
