import { startPostgres } from "@distlock/test-servers";
import { PostgresDialect } from "kysely";
import pg from "pg";
import { describeSqlFence } from "../../test/sql-fence-suite.js";

describeSqlFence("postgres", async () => {
  const server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on("error", () => undefined); // an idle client told of the server's shutdown at the end
  return { dialect: new PostgresDialect({ pool }), lockUrl: server.url, stop: () => server.close() };
});
