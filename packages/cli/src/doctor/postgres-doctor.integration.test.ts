import { type PgbouncerServer, type PostgresServer, startPgbouncer, startPostgres } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow } from "./doctor.test-support.js";

let server: PostgresServer;
let transactionPooler: PgbouncerServer;

beforeAll(async () => {
  server = await startPostgres();
  transactionPooler = await startPgbouncer({ upstream: server, poolMode: "transaction", poolSize: 2 });
});
afterAll(async () => {
  await transactionPooler?.close();
  await server?.close();
});

async function freshDatabase(): Promise<string> {
  const name = `doctor_${crypto.randomUUID().replaceAll("-", "")}`;
  await server.createDatabase(name);
  return name;
}

describe("doctor on PostgreSQL", () => {
  it("passes table mode on a direct connection: pooling, LISTEN/NOTIFY, migration state, privileges, clock, self-test", async () => {
    const url = server.databaseUrl(await freshDatabase());
    const report = await checkLockBackend(url);
    expectAllOk(report);
    expect(expectRow(report, "postgres.migration", "ok").found).toContain("does not exist yet");
    expectRow(report, "postgres.listen-notify", "ok");
    expect(expectRow(report, "postgres.privileges", "ok").found).toContain("CREATE in the current schema");
    const again = await checkLockBackend(url, { selfTest: false });
    expect(expectRow(again, "postgres.migration", "ok").found).toMatch(/is at \d{4}_/);
    expect(expectRow(again, "postgres.privileges", "ok").found).toContain("SELECT, INSERT, UPDATE and DELETE");
  });

  it("passes session mode on a direct connection (idle_session_timeout exists)", async () => {
    const report = await checkLockBackend(`${server.databaseUrl(await freshDatabase())}?mode=session`);
    expectAllOk(report);
    expectRow(report, "postgres.idle-session-timeout", "ok");
  });

  it("fails session mode behind PgBouncer in transaction mode; table mode there passes the pooling check and warns that NOTIFY does not arrive", async () => {
    const database = await freshDatabase();
    const session = await checkLockBackend(`${transactionPooler.databaseUrl(database)}?mode=session`, { selfTest: false });
    expect(expectRow(session, "postgres.pooling", "fail").found).toContain("pool_mode=transaction");
    const table = await checkLockBackend(transactionPooler.databaseUrl(database), { selfTest: false });
    expect(expectRow(table, "postgres.pooling", "ok").found).toContain("table mode is pooler-safe");
    expect(expectRow(table, "postgres.listen-notify", "warn").found).toContain("waiters fall back to polling");
  });

  it("fails migrate=false on a database without the lock table, and a user without privileges", async () => {
    const database = await freshDatabase();
    const noMigrate = await checkLockBackend(`${server.databaseUrl(database)}?migrate=false`, { selfTest: false });
    expect(expectRow(noMigrate, "postgres.migration", "fail").found).toContain("migrate is off");
    await checkLockBackend(server.databaseUrl(database));
    await server.query(`create role doctor_reader login`, database).catch(() => undefined);
    const reader = server.databaseUrl(database).replace("postgres@", "doctor_reader@");
    const row = expectRow(await checkLockBackend(reader, { selfTest: false }), "postgres.privileges", "fail");
    expect(row.change).toContain("GRANT SELECT, INSERT, UPDATE, DELETE ON distlock_locks");
  });

  it("reports an unreachable server", async () => {
    const report = await checkLockBackend("postgres://postgres@127.0.0.1:1/postgres");
    expect(report.reachable).toBe(false);
    expectRow(report, "postgres.connect", "fail");
  });
});
