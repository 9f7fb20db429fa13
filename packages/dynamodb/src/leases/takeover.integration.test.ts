import { randomUUID } from "node:crypto";
import { DynamoDbLockProvider } from "@distlock/dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { startDynaliteLockTable } from "../../test/dynalite-lock-table.js";
import { aborted } from "../../test/lock-outcomes.js";

const { server, url } = await startDynaliteLockTable();
afterAll(() => server.close());

describe("takeover without a server clock", () => {
  it("a waiter counts an abandoned lease from its own first sighting, not from the grant", async () => {
    const [holder, late] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url, driftMarginMs: 200 })];
    const key = `abandoned-${randomUUID()}`;
    const lock = await holder.acquire(key, { ttlMs: 300, autoRenew: false });
    await aborted(lock.signal);
    // The holder has given the lease up on its clock; the late waiter has never seen this version, so it cannot know.
    const firstSight = performance.now();
    expect(await late.tryAcquire(key)).toBeNull();
    const seen = await late.inspect(key);
    expect(seen?.ttlRemainingMs).toBeGreaterThan(0);
    expect(seen?.ttlRemainingMs).toBeLessThanOrEqual(300);
    const next = await late.acquire(key, { waitMs: 3_000 });
    const waited = performance.now() - firstSight;
    expect(waited).toBeGreaterThanOrEqual(300 * 1.01 + 200);
    expect(waited).toBeLessThan(1_500);
    expect(next.fencingToken).toBe((lock.fencingToken as bigint) + 1n);
    await Promise.all([holder.close(), late.close()]);
  });

  it("the holder's lost signal fires before a waiter that saw the grant can take the key", async () => {
    const [holder, waiter] = [new DynamoDbLockProvider({ url }), new DynamoDbLockProvider({ url, driftMarginMs: 0, driftRate: 0 })];
    const key = `deadline-${randomUUID()}`;
    const lock = await holder.acquire(key, { ttlMs: 400, autoRenew: false });
    let lostAt = Number.POSITIVE_INFINITY;
    void aborted(lock.signal).then(() => {
      lostAt = performance.now();
    });
    await waiter.acquire(key, { waitMs: 3_000 });
    expect(lostAt).toBeLessThan(performance.now());
    await Promise.all([holder.close(), waiter.close()]);
  });
});
