import { randomUUID } from "node:crypto";
import { DEFAULT_DYNAMODB_LOCK_OPTIONS, DynamoDbLockProvider } from "@distlock/dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { startDynaliteLockTable } from "../../test/dynalite-lock-table.js";
import { abandonedPlace, lineOnServer, placesInLine, type RawTable, untilLineHas } from "../../test/raw-line.js";

const TABLE = "distlock-line";
const { server, url } = await startDynaliteLockTable(TABLE);
const raw: RawTable = { server, table: TABLE, prefix: DEFAULT_DYNAMODB_LOCK_OPTIONS.prefix };
const providers: DynamoDbLockProvider[] = [];
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  await server.close();
});

/** A provider of its own, as another process would have (its own client, its own sightings of leases). */
function provider(options: { driftMarginMs?: number } = {}): DynamoDbLockProvider {
  const opened = new DynamoDbLockProvider({ url, ...options });
  providers.push(opened);
  return opened;
}

/** `key` held by `holder`, and `other`'s acquire standing in its line (the caller awaits `waiting`). */
async function heldWithOneWaiting(key: string, holder: DynamoDbLockProvider, other: DynamoDbLockProvider) {
  const first = await holder.acquire(key, { ttlMs: 5_000 });
  const waiting = other.acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
  // Awaited by the caller; a failed expectation before that must not add an unhandled rejection.
  waiting.catch(() => undefined);
  await untilLineHas(raw, key, 1);
  return { first, waiting };
}

describe("the line of waiters in the lock item", () => {
  it("serves W contenders over four providers in turn, each about its share of the grants", async () => {
    const key = `turns-${randomUUID()}`;
    const [workersPerProvider, grantsToCount] = [2, 64];
    const workers = Array.from({ length: 4 }, () => provider()).flatMap((each, p) =>
      Array.from({ length: workersPerProvider }, (_, w) => ({ name: `${p}/${w}`, provider: each })),
    );
    const grants: string[] = [];
    // Counted from the grant after every worker's first: until then, a slow-starting provider has not joined the line yet.
    const counted = () => {
      const everyoneIn = Math.max(...workers.map(({ name }) => grants.indexOf(name)));
      return workers.some(({ name }) => !grants.includes(name)) ? [] : grants.slice(everyoneIn + 1, everyoneIn + 1 + grantsToCount);
    };
    await Promise.all(
      workers.map(async ({ name, provider: mine }) => {
        while (counted().length < grantsToCount) {
          const lock = await mine.acquire(key, { ttlMs: 5_000, waitMs: 20_000 });
          grants.push(name);
          await lock.release();
        }
      }),
    );
    const counts = workers.map(({ name }) => counted().filter((each) => each === name).length);
    // Each worker comes back to the end of the line, so they take turns (polling without a line let a releasing worker
    // take the key again and again: min/max 0.3 here).
    expect(Math.max(...counts) - Math.min(...counts), `grants per worker ${counts.join(", ")}; in order ${grants.join(" ")}`).toBeLessThanOrEqual(1);
    expect(await placesInLine(raw, key)).toEqual([]);
  });

  it("a holder that releases and comes straight back queues behind the waiter already in line", async () => {
    const key = `comes-back-${randomUUID()}`;
    const [holder, other] = [provider(), provider()];
    const { first, waiting } = await heldWithOneWaiting(key, holder, other);
    await first.release();
    const comingBack = holder.acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
    comingBack.catch(() => undefined);
    const served = await waiting;
    // Without the line, the holder's attempt right after its release took the key first (and the waiter the next token).
    expect(served.fencingToken).toBe((first.fencingToken as bigint) + 1n);
    await served.release();
    expect((await comingBack).fencingToken).toBe((first.fencingToken as bigint) + 2n);
    await (await comingBack).release();
  });

  it("a line its last place left empty is removed by the next direct take, so that its owner can take the key back whole", async () => {
    const key = `emptied-${randomUUID()}`;
    const [holder, other] = [provider(), provider()];
    const { first, waiting } = await heldWithOneWaiting(key, holder, other);
    await first.release();
    await (await waiting).release();
    expect(await lineOnServer(raw, key)).toEqual([]);
    // The holder's take back expects the version its release wrote and no line: neither holds, so it takes directly.
    const direct = await holder.acquire(key, { ttlMs: 5_000 });
    expect(await lineOnServer(raw, key)).toBeUndefined();
    await direct.release();
    const back = await holder.acquire(key, { ttlMs: 5_000 });
    expect([direct.fencingToken, back.fencingToken]).toEqual([(first.fencingToken as bigint) + 2n, (first.fencingToken as bigint) + 3n]);
    await back.release();
  });

  it("a dead waiter's place lapses one place lease after a live waiter first saw it, and does not block the line", async () => {
    const key = `dead-waiter-${randomUUID()}`;
    const [holder, waiter] = [provider(), provider({ driftMarginMs: 100 })];
    const held = await holder.acquire(key, { ttlMs: 5_000 });
    const dead = await abandonedPlace(raw, key, 300);
    const joinedAt = performance.now();
    const waiting = waiter.acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
    waiting.catch(() => undefined);
    await untilLineHas(raw, key, 2);
    await held.release();
    const lock = await waiting;
    const waited = performance.now() - joinedAt;
    expect(waited).toBeGreaterThanOrEqual(300 * 1.01 + 100);
    expect(waited).toBeLessThan(2_000);
    expect(await placesInLine(raw, key)).not.toContain(dead);
    expect(await placesInLine(raw, key)).toEqual([]);
    await lock.release();
  });

  it("a free key refuses a direct attempt while a live place is in line, and grants it once that place lapsed", async () => {
    const key = `direct-${randomUUID()}`;
    const direct = provider({ driftMarginMs: 100 });
    await abandonedPlace(raw, key, 300);
    const firstSight = performance.now();
    expect(await direct.tryAcquire(key)).toBeNull();
    const lock = await direct.acquire(key, { ttlMs: 5_000, waitMs: 5_000 });
    expect(performance.now() - firstSight).toBeGreaterThanOrEqual(300 * 1.01 + 100);
    expect(await placesInLine(raw, key)).toEqual([]);
    expect(lock.fencingToken).toBe(1n);
    await lock.release();
  });

  it("inspect counts the live places in line, not the lapsed ones", async () => {
    const key = `count-${randomUUID()}`;
    const [holder, observer] = [provider(), provider({ driftMarginMs: 0 })];
    await holder.acquire(key, { ttlMs: 5_000 });
    await abandonedPlace(raw, key, 200);
    await abandonedPlace(raw, key, 60_000);
    expect((await observer.inspect(key))?.waiters).toBe(2);
    await expect.poll(async () => (await observer.inspect(key))?.waiters, { timeout: 2_000, interval: 50 }).toBe(1);
  });
});
