import { randomUUID } from "node:crypto";
import { LockErrorCode, type QuorumNotReachedError } from "@distlock/core";
import { startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const TTL_MS = 30_000;

const group = await startRedisGroup(5);
afterAll(() => group.close());

const providers: RedlockLockProvider[] = [];
afterEach(async () => {
  await Promise.all(group.servers.map((server) => server.start()));
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(): RedlockLockProvider {
  const created = new RedlockLockProvider({ url: group.url, nodeTimeoutMs: 200, connectTimeoutMs: 500 });
  providers.push(created);
  return created;
}

function lockKeyOnServer(key: string): string {
  return `{distlock-redlock:${key}}:lock`;
}

describe("redlock list: the quorum view", () => {
  it("lists a key a majority holds and leaves out one that only a minority still holds", async () => {
    const locks = provider();
    const prefix = `list:${randomUUID()}:`;
    const held = await locks.acquire(`${prefix}majority`, { ttlMs: TTL_MS });
    await locks.acquire(`${prefix}minority`, { ttlMs: TTL_MS });
    for (const server of group.servers.slice(0, 3)) expect(await server.command("DEL", lockKeyOnServer(`${prefix}minority`))).toBe(1);
    const states = await provider().list(prefix);
    expect(states).toEqual([expect.objectContaining({ key: `${prefix}majority`, holder: held.holder, fencingToken: held.fencingToken })]);
  });

  it("lists through 2 of 5 masters down, and rejects with QUORUM_NOT_REACHED when 3 are", async () => {
    const locks = provider();
    const prefix = `list-down:${randomUUID()}:`;
    await locks.acquire(`${prefix}a`, { ttlMs: TTL_MS });
    await Promise.all([group.servers[3]?.kill(), group.servers[4]?.kill()]);
    expect((await locks.list(prefix)).map((state) => state.key)).toEqual([`${prefix}a`]);
    await group.servers[2]?.kill();
    const error = await locks.list(prefix).then(
      () => undefined,
      (e: unknown) => e as QuorumNotReachedError,
    );
    expect(error?.code).toBe(LockErrorCode.QuorumNotReached);
  });
});
