import { randomUUID } from "node:crypto";
import { startRedisGroup } from "@distlock/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RedlockLockProvider } from "./redlock-lock-provider.js";

const TTL_MS = 5_000;
const QUORUM = 3;

const group = await startRedisGroup(5);
afterAll(() => group.close());

const providers: RedlockLockProvider[] = [];
afterEach(async () => {
  await Promise.all(group.servers.map((server) => server.start()));
  await Promise.all(group.servers.map((server) => server.command("ACL", "SETUSER", "default", "+@all")));
  await Promise.allSettled(providers.splice(0).map((p) => p.close()));
});

function provider(): RedlockLockProvider {
  const created = new RedlockLockProvider({ url: group.url, nodeTimeoutMs: 200, connectTimeoutMs: 500 });
  providers.push(created);
  return created;
}

/** Indexes of the nodes whose lock hash carries `token` marked as the quorum's confirmed token. */
async function confirmedOn(key: string, token: bigint | null): Promise<number[]> {
  const stored = await Promise.all(group.servers.map((server) => server.command("HGET", `{distlock-redlock:${key}}:lock`, "token")));
  return stored.flatMap((value, i) => (value === `=${token}` ? [i] : []));
}

describe("fenced acquisition confirms its token on a majority", () => {
  it("a fresh grant writes its token to exactly a majority of the nodes, not to every node", async () => {
    const key = `confirm-majority:${randomUUID()}`;
    const lock = await provider().acquire(key, { ttlMs: TTL_MS });
    expect(await confirmedOn(key, lock.fencingToken)).toHaveLength(QUORUM);
    await lock.release();
  });

  it("when a node of the first majority cannot confirm, the others confirm instead and the token still rises", async () => {
    // Only the confirmation script reads the counter with GET, so this breaks confirmation on node 0 alone.
    expect(await group.servers[0]?.command("ACL", "SETUSER", "default", "-get")).toBe("OK");
    const [locks, rival] = [provider(), provider()];
    const key = `confirm-fallback:${randomUUID()}`;
    const lock = await locks.acquire(key, { ttlMs: TTL_MS });
    const confirmed = await confirmedOn(key, lock.fencingToken);
    expect(confirmed).not.toContain(0);
    expect(confirmed.length).toBeGreaterThanOrEqual(QUORUM);
    await lock.release();
    const next = await rival.acquire(key, { ttlMs: TTL_MS });
    expect(next.fencingToken as bigint).toBeGreaterThan(lock.fencingToken as bigint);
    await next.release();
  });

  it("an explicit owner re-enters from another provider with the same token while 2 of the confirming nodes are down", async () => {
    const key = `confirm-reenter:${randomUUID()}`;
    const owner = `owner-${randomUUID()}`;
    const lock = await provider().acquire(key, { ttlMs: TTL_MS, owner });
    const confirmed = await confirmedOn(key, lock.fencingToken);
    await Promise.all(confirmed.slice(0, 2).map((i) => group.servers[i]?.kill()));
    const again = await provider().acquire(key, { ttlMs: TTL_MS, owner });
    expect(again.holdCount).toBe(2);
    expect(again.fencingToken).toBe(lock.fencingToken);
  });
});
