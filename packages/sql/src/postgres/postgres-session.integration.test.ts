import { startPostgres } from "@distlock/test-servers";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { sessionAbortTests } from "../../test/session-abort-tests.js";
import { sessionLossTests, sessionProviders } from "../../test/session-lock-tests.js";
import { sessionPermitTests } from "../../test/session-permit-tests.js";
import { sessionPickTests } from "../../test/session-pick-tests.js";
import { DEFAULT_SQL_LOCK_OPTIONS } from "../options/sql-lock-provider-options.js";
import { sessionLockId } from "../session/session-lock-id.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startPostgres();
const url = `${server.url}${server.url.includes("?") ? "&" : "?"}mode=session`;
const admin = new pg.Client({ connectionString: server.url });
admin.on("error", () => undefined);
await admin.connect();
const provider = sessionProviders(url);
afterAll(async () => {
  await admin.end().catch(() => undefined);
  await server.close();
});

/** The backend pid of the session holding `lockKey`, from pg_locks. */
async function holdingPid(lockKey: string): Promise<number> {
  const id = sessionLockId(DEFAULT_SQL_LOCK_OPTIONS.table, lockKey);
  const { rows } = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1",
    [id.pgClassId, id.pgObjId],
  );
  return rows[0]?.pid as number;
}

describe("postgres session mode", () => {
  const permitTable = `${DEFAULT_SQL_LOCK_OPTIONS.table}_session_permits`;
  // Before the loss tests, which restart the server under the admin connection.
  sessionPermitTests({
    provider,
    // The backend whose advisory locks include the grant's session tag.
    endSessionOfGrant: async (token) => {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(l.pid) AS ended FROM ${permitTable} p JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
           AND l.classid = ((p.session_tag >> 32) & 4294967295)::oid AND l.objid = (p.session_tag & 4294967295)::oid WHERE p.token = $1`,
        [String(token)],
      );
      expect(rows.map((row) => row.ended)).toEqual([true]);
    },
    permitRows: async () => Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${permitTable}`)).rows[0]?.n),
  });

  sessionAbortTests(provider);

  sessionPickTests(url);

  sessionLossTests({
    url,
    server,
    provider,
    endHoldingSession: async (lockKey) => void (await admin.query("SELECT pg_terminate_backend($1)", [await holdingPid(lockKey)])),
    // idle_session_timeout is in milliseconds.
    idleRoundingMs: 0,
  });

  it("rejects bad mode input with INVALID_CONFIG naming the field, before connecting", () => {
    expect(() => new SqlLockProvider({ url: server.url, mode: "advisory" as never })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", field: "options.mode" }),
    );
    expect(() => new SqlLockProvider({ url: `${url.replace("mode=session", "mode=sessions")}` })).toThrow(expect.objectContaining({ field: "url.mode" }));
    expect(() => new SqlLockProvider({ pgPool: new pg.Pool(), mode: "session" })).toThrow(expect.objectContaining({ field: "options.mode" }));
    expect(() => new SqlLockProvider({ url: "sqlite:./x.sqlite?mode=session" })).toThrow(expect.objectContaining({ field: "url.mode" }));
  });
});
