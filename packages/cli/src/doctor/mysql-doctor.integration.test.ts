import { type MariadbServer, startMariadb } from "@distlock/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLockBackend } from "./check-lock-backend.js";
import { expectAllOk, expectRow } from "./doctor.test-support.js";

let server: MariadbServer;

beforeAll(async () => {
  server = await startMariadb();
});
afterAll(async () => {
  await server?.close();
});

const freshDatabase = () => server.createDatabase(`doctor_${crypto.randomUUID().replaceAll("-", "")}`);

describe("doctor on MariaDB", () => {
  it("passes table mode: version, several GET_LOCKs per session, migration state, clock, self-test", async () => {
    const url = await freshDatabase();
    const report = await checkLockBackend(url);
    expectAllOk(report);
    expect(expectRow(report, "mysql.version", "ok").found).toMatch(/^MariaDB /);
    expectRow(report, "mysql.get-lock", "ok");
    expect(expectRow(await checkLockBackend(url, { selfTest: false }), "mysql.migration", "ok").found).toMatch(/is at \d{4}_/);
  });

  it("passes session mode: the session's wait_timeout follows the lease", async () => {
    const report = await checkLockBackend(`${await freshDatabase()}?mode=session`, { ttlMs: 12_500 });
    expectAllOk(report);
    expect(expectRow(report, "mysql.wait-timeout", "ok").found).toContain("a session asking for 13 s (the lease) got 13 s");
  });

  it("fails migrate=false on a database without the lock table; reports an unreachable server", async () => {
    const report = await checkLockBackend(`${await freshDatabase()}?migrate=false`, { selfTest: false });
    expect(expectRow(report, "mysql.migration", "fail").found).toContain("does not exist yet");
    expect((await checkLockBackend("mysql://root@127.0.0.1:1/test")).reachable).toBe(false);
  });
});
