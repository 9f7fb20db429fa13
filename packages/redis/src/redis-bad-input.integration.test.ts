import { createServer, type Server, type Socket } from "node:net";
import { createLockProvider, LockError, LockErrorCode } from "@distlock/core";
import { monotonicNow } from "@distlock/core/internal";
import { startRedis } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { RedisLockProviderOptions } from "./options/redis-lock-provider-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";
import { parseLockRecord } from "./scripts/lock-record.js";

const server = await startRedis();
afterAll(() => server.close());

function rejection(run: () => unknown): Promise<unknown> {
  return Promise.resolve()
    .then(run)
    .then(
      () => undefined,
      (error: unknown) => error,
    );
}

async function expectConfigError(run: () => unknown, field: string): Promise<LockError> {
  const error = await rejection(run);
  expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
  expect((error as { field?: string }).field).toBe(field);
  return error as LockError;
}

/** A TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A server that accepts connections and never answers: a hung redis. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const silent: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  return {
    port: (silent.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => silent.close(() => resolve()));
    },
  };
}

describe("redis bad input", () => {
  it.each([
    ["a port out of range", "redis://127.0.0.1:70000", "url.port"],
    ["a non-numeric port", "redis://127.0.0.1:abc", "url.port"],
    ["an unknown scheme", "redix://127.0.0.1:6390", "url.scheme"],
    ["a database that is not a number", "redis://127.0.0.1:6390/zero", "url.path"],
    ["a cluster URL with a database", "redis+cluster://127.0.0.1:7000,127.0.0.1:7001/2", "url.path"],
    ["a sentinel URL without a master name", "redis+sentinel://127.0.0.1:26379", "url.path"],
    ["an unknown URL parameter", "redis://127.0.0.1:6390?prefx=a", "url.prefx"],
    ["a non-numeric timeout parameter", "redis://127.0.0.1:6390?commandTimeoutMs=soon", "url.commandTimeoutMs"],
    ["a bad tls parameter", "redis+cluster://127.0.0.1:7000?tls=maybe", "url.tls"],
  ])("createLockProvider rejects %s with INVALID_CONFIG naming the field", async (_, url, field) => {
    await expectConfigError(() => createLockProvider(url), field);
  });

  it("createLockProvider rejects an unknown backend option naming it", async () => {
    await expectConfigError(() => createLockProvider({ url: server.url, prefx: "a" }), "config.prefx");
  });

  it("a URL of another backend is refused by RedisLockProvider", async () => {
    await expectConfigError(() => new RedisLockProvider({ url: "postgres://127.0.0.1:5433/locks" }), "url.scheme");
  });

  it.each<[string, RedisLockProviderOptions | unknown, string]>([
    ["neither url nor client", {}, "options.url"],
    ["both url and client", { url: "redis://127.0.0.1:6390", client: {} }, "options.client"],
    ["a client that is not ioredis", { client: { get: () => undefined } }, "options.client"],
    ["an unknown option", { url: "redis://127.0.0.1:6390", commandTimeout: 5 }, "options.commandTimeout"],
    ["a prefix with a brace", { url: "redis://127.0.0.1:6390", prefix: "a{b" }, "options.prefix"],
    ["an empty prefix", { url: "redis://127.0.0.1:6390", prefix: "" }, "options.prefix"],
    ["a zero command timeout", { url: "redis://127.0.0.1:6390", commandTimeoutMs: 0 }, "options.commandTimeoutMs"],
    ["a NaN connect timeout", { url: "redis://127.0.0.1:6390", connectTimeoutMs: Number.NaN }, "options.connectTimeoutMs"],
    ["a numeric string as a number option", { url: "redis://127.0.0.1:6390", renewBatchSize: "10" }, "options.renewBatchSize"],
    ["replica acknowledgement on a cluster", { url: "redis+cluster://127.0.0.1:7000", waitForReplicas: 1 }, "options.waitForReplicas"],
    ["options that are not an object", null, "options"],
  ])("RedisLockProvider rejects %s before connecting", async (_, options, field) => {
    await expectConfigError(() => new RedisLockProvider(options as RedisLockProviderOptions), field);
  });

  it("an unreachable server fails a call with BACKEND_UNAVAILABLE within the connect timeout, without the password", async () => {
    const url = `redis://app:hunter2@127.0.0.1:${await closedPort()}`;
    const locks = new RedisLockProvider({ url, connectTimeoutMs: 1_000, commandTimeoutMs: 1_000 });
    const started = monotonicNow();
    const error = await rejection(() => locks.acquire("unreachable"));
    expect(monotonicNow() - started).toBeLessThan(1_500);
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).not.toContain("hunter2");
    await locks.close();
  });

  it("a server that accepts but never answers fails a call with BACKEND_UNAVAILABLE within the command timeout", async () => {
    const silent = await silentServer();
    const locks = await createLockProvider(`redis://127.0.0.1:${silent.port}?commandTimeoutMs=300&connectTimeoutMs=300`);
    const started = monotonicNow();
    const error = await rejection(() => locks.tryAcquire("silent"));
    expect(monotonicNow() - started).toBeLessThan(800);
    expect(LockError.is(error, LockErrorCode.BackendUnavailable), String(error)).toBe(true);
    await locks.close();
    await silent.close();
  });

  it("closing a provider built on the caller's client leaves that client connected", async () => {
    const client = new Redis(server.port, "127.0.0.1");
    const locks = new RedisLockProvider({ client });
    const lock = await locks.acquire("borrowed-client");
    await locks.close();
    expect(lock.signal.aborted).toBe(true);
    expect(await client.ping()).toBe("PONG");
    expect(parseLockRecord(await client.get("{distlock:borrowed-client}:lock"))).toMatchObject({ free: true });
    client.disconnect();
  });
});
