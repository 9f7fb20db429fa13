import { randomUUID } from "node:crypto";
import { newOwnerSecret } from "@distlock/core/internal";
import { startRedisCluster } from "@distlock/test-servers";
import { afterAll, expect, it } from "vitest";
import { createRedisLockDriver } from "./create-redis-lock-driver.js";
import { keySlot } from "./keys/key-slot.js";
import { resolveRedisLockOptions } from "./options/resolve-redis-lock-options.js";
import { RedisLockProvider } from "./redis-lock-provider.js";

const cluster = await startRedisCluster({ masters: 3 });
afterAll(() => cluster.close());

it("renews holds spread over many cluster slots in one batch, answering each in order", async () => {
  const driver = createRedisLockDriver(resolveRedisLockOptions({ url: cluster.url }));
  try {
    const renewals = Array.from({ length: 60 }, () => ({ key: `cluster:${randomUUID()}`, ownerSecret: newOwnerSecret(), ttlMs: 60_000 }));
    const held = renewals.filter((_, i) => i % 3 !== 0);
    for (const r of held) await driver.tryAcquire({ ...r, holder: "test", ttlMs: 1_000 });
    expect(new Set(renewals.map((r) => keySlot(driver.layout.lockKey(r.key)))).size).toBeGreaterThan(30);
    const renewed = await driver.renew(renewals);
    expect(renewed).toEqual(renewals.map((_, i) => i % 3 !== 0));
    for (const r of held) expect((await driver.inspect(r.key))?.ttlRemainingMs).toBeGreaterThan(30_000);
  } finally {
    await driver.close();
  }
});

it("lists the keys under a prefix from every master, each of which holds some of them", async () => {
  await using provider = new RedisLockProvider({ url: cluster.url });
  const prefix = `cluster-list:${randomUUID()}:`;
  const keys = Array.from({ length: 30 }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
  await Promise.all(keys.map((key) => provider.acquire(key, { ttlMs: 60_000 })));
  for (const node of cluster.nodes) {
    expect(((await node.command("KEYS", `{distlock:${prefix}*}:lock`)) as string[]).length, node.name).toBeGreaterThan(0);
  }
  expect((await provider.list(prefix)).map((state) => state.key)).toEqual(keys);
});
