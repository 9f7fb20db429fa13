import { randomUUID } from "node:crypto";
import { startRedisGroup } from "@distlock/test-servers";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const group = await startRedisGroup(3);
const clients = group.servers.map((server) => new Redis({ host: server.host, port: server.port }));
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await group.close();
});

describe("redlock on ioredis clients the caller owns", () => {
  it("locks through the given clients, names nodes by their address, and leaves the clients open on close", async () => {
    const locks = new RedlockLockProvider({ clients });
    const urlLocks = new RedlockLockProvider({ url: group.url });
    const key = `clients:${randomUUID()}`;
    const lock = await locks.acquire(key, { ttlMs: 5_000 });
    expect(await urlLocks.tryAcquire(key)).toBeNull();
    expect((await urlLocks.inspect(key))?.fencingToken).toBe(lock.fencingToken);
    await locks.close();
    expect(await urlLocks.inspect(key)).toBeNull();
    await urlLocks.close();
    expect(await Promise.all(clients.map((client) => client.ping()))).toEqual(["PONG", "PONG", "PONG"]);
  });
});
