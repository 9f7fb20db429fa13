import { fork } from "node:child_process";
import { once } from "node:events";
import { LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/driver";
import { startPostgres } from "@distlock/test-servers";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SQL_LOCK_OPTIONS } from "../options/sql-lock-provider-options.js";
import { SqlLockProvider } from "../sql-lock-provider.js";
import { sessionLockId } from "./session-lock-id.js";

const server = await startPostgres();
const url = `${server.url}${server.url.includes("?") ? "&" : "?"}mode=session`;
const admin = new pg.Client({ connectionString: server.url });
admin.on("error", () => undefined);
await admin.connect();
const providers: SqlLockProvider[] = [];
afterAll(async () => {
  await Promise.allSettled(providers.map((provider) => provider.close()));
  await admin.end().catch(() => undefined);
  await server.close();
});

function provider(label = "session-test"): SqlLockProvider {
  const created = new SqlLockProvider({ url, holderLabel: `${label}-${providers.length}` });
  providers.push(created);
  return created;
}

const key = (name: string) => `${name}-${crypto.randomUUID()}`;

function abortedWith(signal: AbortSignal): Promise<unknown> {
  return signal.aborted ? Promise.resolve(signal.reason) : once(signal, "abort").then(() => signal.reason);
}

/** The backend pid of the session holding `lockKey`, from pg_locks. */
async function holdingPid(lockKey: string): Promise<number> {
  const id = sessionLockId(DEFAULT_SQL_LOCK_OPTIONS.table, lockKey);
  const { rows } = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1",
    [id.pgClassId, id.pgObjId],
  );
  return rows[0]?.pid as number;
}

function spawnHolder(lockKey: string, ttlMs: number) {
  const child = fork(new URL("../../test/session-holder-worker.mjs", import.meta.url), [url, lockKey, String(ttlMs)], { stdio: "ignore" });
  const held = once(child, "message").then(([message]) => BigInt((message as { fencingToken: string }).fencingToken));
  return { child, held };
}

describe("postgres session mode", () => {
  it("aborts lock.signal at once when the holding session is terminated, and a new owner gets a higher token", async () => {
    const lockKey = key("terminated");
    const lock = await provider().acquire(lockKey, { ttlMs: 60_000 });
    const pid = await holdingPid(lockKey);
    const started = monotonicNow();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    expect(LockError.is(await abortedWith(lock.signal), LockErrorCode.LockLost)).toBe(true);
    expect(monotonicNow() - started).toBeLessThan(1_000);
    const next = await provider().acquire(lockKey, { waitMs: 1_000 });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
    await expect(lock.release()).rejects.toMatchObject({ code: LockErrorCode.LockLost });
    await next.release();
  });

  it("frees the key of a SIGKILLed holder process as soon as the server sees its socket close", async () => {
    const lockKey = key("sigkill");
    const { child, held } = spawnHolder(lockKey, 60_000);
    const token = await held;
    const waiter = provider();
    expect(await waiter.tryAcquire(lockKey)).toBeNull();
    child.kill("SIGKILL");
    const started = monotonicNow();
    const next = await waiter.acquire(lockKey, { waitMs: 5_000 });
    const freedAfterMs = monotonicNow() - started;
    expect(freedAfterMs).toBeLessThan(1_000);
    expect(next.fencingToken as bigint).toBeGreaterThan(token);
    await next.release();
  });

  it("frees the key of a frozen (SIGSTOPped) holder within its TTL: the server ends the idle session", async () => {
    const lockKey = key("sigstop");
    const ttlMs = 1_000;
    const { child, held } = spawnHolder(lockKey, ttlMs);
    const token = await held;
    child.kill("SIGSTOP");
    const started = monotonicNow();
    try {
      const next = await provider().acquire(lockKey, { waitMs: ttlMs * 3 });
      expect(monotonicNow() - started).toBeLessThan(ttlMs + 1_000);
      expect(next.fencingToken as bigint).toBeGreaterThan(token);
      await next.release();
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("tokens strictly increase per key across processes", async () => {
    const lockKey = key("tokens");
    const local = provider();
    const tokens: bigint[] = [];
    for (let round = 0; round < 3; round++) {
      const mine = await local.acquire(lockKey, { waitMs: 5_000 });
      tokens.push(mine.fencingToken as bigint);
      await mine.release();
      const { child, held } = spawnHolder(lockKey, 60_000);
      tokens.push(await held);
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i] as bigint).toBeGreaterThan(tokens[i - 1] as bigint);
  });

  it("rejects bad mode input with INVALID_CONFIG naming the field, before connecting", () => {
    expect(() => new SqlLockProvider({ url: server.url, mode: "advisory" as never })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", field: "options.mode" }),
    );
    expect(() => new SqlLockProvider({ url: `${url.replace("mode=session", "mode=sessions")}` })).toThrow(expect.objectContaining({ field: "url.mode" }));
    expect(() => new SqlLockProvider({ pgPool: new pg.Pool(), mode: "session" })).toThrow(expect.objectContaining({ field: "options.mode" }));
    expect(() => new SqlLockProvider({ url: "sqlite:./x.sqlite?mode=session" })).toThrow(expect.objectContaining({ field: "url.mode" }));
  });
  it("aborts lock.signal at once when the server restarts, and the key is free afterwards", async () => {
    const lockKey = key("restart");
    const lock = await provider().acquire(lockKey, { ttlMs: 60_000 });
    const lost = abortedWith(lock.signal);
    await server.stop();
    expect(LockError.is(await lost, LockErrorCode.LockLost)).toBe(true);
    await server.start();
    const next = await provider().acquire(lockKey, { waitMs: 5_000 });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
    await next.release();
  });
});
