import { type PostgresServer, startPostgres } from "@distlock/test-servers";
import pg from "pg";
import { afterAll } from "vitest";

/** A PostgreSQL server for this test file and a caller's `pg.Pool` on it, both closed after the file's tests. */
export async function postgresWithPool(): Promise<{ server: PostgresServer; pool: pg.Pool }> {
  const server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 20, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
  pool.on("error", () => undefined);
  afterAll(async () => {
    await pool.end();
    await server.close();
  });
  return { server, pool };
}
