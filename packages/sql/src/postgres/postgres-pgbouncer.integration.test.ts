import { LockError, LockErrorCode } from "@distlock/core";
import { startPgbouncer, startPostgres } from "@distlock/test-servers";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { abortedWith, uniqueKey } from "../../test/session-lock-tests.js";
import { SqlLockProvider } from "../sql-lock-provider.js";

const server = await startPostgres();
// Two server connections, handed out most recently used first (server_round_robin off, PgBouncer's default).
const transactionPooler = await startPgbouncer({ upstream: server, poolMode: "transaction", poolSize: 2 });
const sessionPooler = await startPgbouncer({ upstream: server, poolMode: "session" });
afterAll(async () => {
  await Promise.allSettled([transactionPooler.close(), sessionPooler.close()]);
  await server.close();
});

/** A fresh database behind `pooler`: a pool of server connections of its own, so no test sees another's. */
async function freshDatabase(pooler: typeof transactionPooler): Promise<string> {
  const name = `pooled_${crypto.randomUUID().replaceAll("-", "")}`;
  await server.createDatabase(name);
  return pooler.databaseUrl(name);
}

/**
 * Another client of the pooler that opens a transaction and so keeps, until it ends, the server connection the
 * pooler used last: the provider's own, since the provider's statement was the last one to finish.
 */
async function pinLastUsedServerConnection(url: string): Promise<AsyncDisposable> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1");
  return { [Symbol.asyncDispose]: () => client.query("COMMIT").then(() => client.end()) };
}

async function withProvider(url: string, use: (provider: SqlLockProvider) => Promise<void>): Promise<void> {
  const provider = new SqlLockProvider({ url: `${url}?mode=session` });
  try {
    await use(provider);
  } finally {
    await provider.close();
  }
}

const refusedAsPooled = { code: LockErrorCode.InvalidConfig, field: "options.url" };

describe("postgres session mode behind PgBouncer 1.18", () => {
  it("transaction pooling: a lock statement that lands on another server session is refused with INVALID_CONFIG on url", async () => {
    const url = await freshDatabase(transactionPooler);
    await withProvider(url, async (provider) => {
      const lockKey = uniqueKey("pooled-pid");
      // Opens the provider's session: its pid is read on the pool's last used server connection.
      expect(await provider.inspect(lockKey)).toBeNull();
      await using _pinned = await pinLastUsedServerConnection(url);
      // The first lock statement is parsed and run on the pool's other connection: its pg_backend_pid() differs.
      await expect(provider.tryAcquire(lockKey)).rejects.toMatchObject(refusedAsPooled);
    });
  });

  it("transaction pooling: a prepared lock statement the other server session never saw is refused with INVALID_CONFIG on url too", async () => {
    const url = await freshDatabase(transactionPooler);
    await withProvider(url, async (provider) => {
      // The lock statements are prepared on the connection the pooler used for the whole first acquire.
      const first = await provider.tryAcquire(uniqueKey("pooled-first"), { autoRenew: false });
      expect(first).not.toBeNull();
      await using _pinned = await pinLastUsedServerConnection(url);
      // Only bound this time, on the other server session: "prepared statement ... does not exist" (26000).
      await expect(provider.tryAcquire(uniqueKey("pooled-prepared"))).rejects.toMatchObject(refusedAsPooled);
      // The session was closed: the first hold is lost at once.
      expect(LockError.is(await abortedWith(first?.signal as AbortSignal), LockErrorCode.LockLost)).toBe(true);
    });
  });

  it("session pooling: a lock round trip works, with a wait and increasing tokens", async () => {
    await withProvider(await freshDatabase(sessionPooler), async (provider) => {
      const lockKey = uniqueKey("session-pooled");
      const held = await provider.acquire(lockKey);
      expect(await provider.inspect(lockKey)).toMatchObject({ holdCount: 1, fencingToken: held.fencingToken });
      const waiting = provider.acquire(lockKey, { owner: "second", waitMs: 5_000 });
      await held.release();
      const next = await waiting;
      expect(next.fencingToken as bigint).toBeGreaterThan(held.fencingToken as bigint);
      await next.release();
      expect(await provider.inspect(lockKey)).toBeNull();
    });
  });
});
