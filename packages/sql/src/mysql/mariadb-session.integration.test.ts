import { LockErrorCode } from "@distlock/core";
import { startMariadb } from "@distlock/test-servers";
import mysql from "mysql2/promise";
import { afterAll, describe, expect, it, vi } from "vitest";
import { sessionAbortTests } from "../../test/session-abort-tests.js";
import { sessionLossTests, sessionProviders, spawnHolder, uniqueKey } from "../../test/session-lock-tests.js";
import { sessionPermitTests } from "../../test/session-permit-tests.js";
import { sessionPickTests } from "../../test/session-pick-tests.js";
import { DEFAULT_SQL_LOCK_OPTIONS } from "../options/sql-lock-provider-options.js";
import { sessionLockId } from "../session/session-lock-id.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startMariadb();
const url = `${server.userUrl}?mode=session`;
// A pool: its connections are replaced after the server-restart test.
const admin = mysql.createPool({ uri: server.url, connectionLimit: 2 });
const provider = sessionProviders(url);
afterAll(async () => {
  await admin.end();
  await server.close();
});

/** The connection id of the session holding `lockKey` (IS_USED_LOCK), null when free. */
async function holdingConnection(lockKey: string): Promise<number | null> {
  const name = sessionLockId(`test.${DEFAULT_SQL_LOCK_OPTIONS.table}`, lockKey).mysqlName;
  const [rows] = await admin.query<mysql.RowDataPacket[]>("SELECT IS_USED_LOCK(?) AS holder", [name]);
  return rows[0]?.holder === null ? null : Number(rows[0]?.holder);
}

describe("mariadb session mode", () => {
  sessionAbortTests(provider);

  sessionPickTests(url);

  sessionLossTests({
    url,
    server,
    provider,
    endHoldingSession: async (lockKey) => void (await admin.query(`KILL ${Number(await holdingConnection(lockKey))}`)),
    // wait_timeout is whole seconds (the tests' 1 s TTL is exact).
    idleRoundingMs: 0,
  });

  const permitTable = `${DEFAULT_SQL_LOCK_OPTIONS.table}_session_permits`;
  sessionPermitTests({
    provider,
    // The connection holding the grant's session tag.
    endSessionOfGrant: async (token) => {
      const [rows] = await admin.query<mysql.RowDataPacket[]>(`SELECT IS_USED_LOCK(session_tag) AS holder FROM ${permitTable} WHERE token = ?`, [
        String(token),
      ]);
      await admin.query(`KILL ${Number(rows[0]?.holder)}`);
    },
    permitRows: async () => Number((await admin.query<mysql.RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${permitTable}`))[0][0]?.n),
  });

  it("names locks within GET_LOCK's 64 characters, per database and table", () => {
    const name = sessionLockId("test.distlock_locks", "k".repeat(10_000)).mysqlName;
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^dl:[0-9a-f]+$/);
    expect(sessionLockId("other.distlock_locks", "k").mysqlName).not.toBe(sessionLockId("test.distlock_locks", "k").mysqlName);
  });

  it("holds the key as a GET_LOCK of its session, which inspect and the server both show", async () => {
    const lockKey = uniqueKey("visible");
    const holder = provider();
    const lock = await holder.acquire(lockKey, { ttlMs: 60_000 });
    expect(await holdingConnection(lockKey)).toEqual(expect.any(Number));
    expect(await holder.inspect(lockKey)).toMatchObject({ holder: lock.holder, holdCount: 1, fencingToken: lock.fencingToken });
    await lock.release();
    expect(await holdingConnection(lockKey)).toBeNull();
    expect(await holder.inspect(lockKey)).toBeNull();
  });

  it("counts waiters of another process's hold, and a waitMs that runs out leaves the server's line (KILL QUERY)", async () => {
    const lockKey = uniqueKey("waiters");
    const { child, held } = spawnHolder(url, lockKey, 60_000);
    try {
      await held;
      const [waiter, observer] = [provider(), provider()];
      const waiting = waiter.acquire(lockKey, { waitMs: 60_000 });
      await vi.waitFor(async () => expect((await observer.inspect(lockKey))?.waiters).toBe(1), { timeout: 5_000 });
      await expect(provider().acquire(lockKey, { waitMs: 300 })).rejects.toMatchObject({ code: LockErrorCode.LockTimeout });
      expect(await observer.inspect(lockKey)).toMatchObject({ holdCount: 1, fencingToken: null, ttlRemainingMs: 0, waiters: 1 });
      child.kill("SIGKILL");
      const next = await waiting;
      expect((await observer.inspect(lockKey))?.waiters).toBe(0);
      await next.release();
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("rejects bad mode input with INVALID_CONFIG naming the field, before connecting", () => {
    expect(() => new SqlLockProvider({ url: server.userUrl, mode: "advisory" as never })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", field: "options.mode" }),
    );
    expect(() => new SqlLockProvider({ url: url.replace("mode=session", "mode=Session") })).toThrow(expect.objectContaining({ field: "url.mode" }));
    expect(() => new SqlLockProvider({ mysqlPool: {} as never, mode: "session" })).toThrow(expect.objectContaining({ field: "options.mode" }));
    expect(() => new SqlLockProvider({ url: `${server.userUrl}?mode=session&table=bad-name` })).toThrow(expect.objectContaining({ code: "INVALID_CONFIG" }));
  });
});
