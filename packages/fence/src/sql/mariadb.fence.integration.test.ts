import { startMariadb } from "@distlock/test-servers";
import { MysqlDialect } from "kysely";
import { createPool } from "mysql2";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("mariadb", async () => {
  const server = await startMariadb();
  return { dialect: new MysqlDialect({ pool: createPool({ uri: server.userUrl, connectionLimit: 4 }) }), lockUrl: server.userUrl, stop: () => server.close() };
});
