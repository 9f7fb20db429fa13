import { randomUUID } from "node:crypto";
import { LockError, LockErrorCode, type PermitsMismatchError } from "@distlock/core";
import type { DriverPermitRequest } from "@distlock/core/driver";
import { monotonicNow } from "@distlock/core/internal";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openSqlConnection } from "../src/connection/open-sql-connection.js";
import { resolveSqlLockOptions } from "../src/options/resolve-sql-lock-options.js";
import { SemaphoreStatements } from "../src/semaphore/semaphore-statements.js";
import { SqlLockProvider } from "../src/sql-lock-provider.js";
import { dialectFlavor } from "../src/table/dialect-statements.js";
import { inWriteTransaction } from "../src/table/write-transaction.js";
import { rejectionOf } from "./settle.js";

/** How long the place of a crashed waiter counts in these tests (the driver's own claim window is 2 s). */
const GHOST_CLAIM_MS = 600;
/** The lease of a crashed holder's grant in these tests. */
const GHOST_TTL_MS = 200;

/** Rows that a process which then crashed left in a semaphore's tables, written with the driver's own statements. */
interface Leftovers {
  readonly grant?: number;
  readonly place?: number;
}

/** A connection of the test's own to the provider's tables, for rows nobody renews and for counting rows. */
function openTables(url: string, claimMs: number) {
  const options = resolveSqlLockOptions({ url });
  const connection = openSqlConnection(options);
  const flavor = dialectFlavor(options.source.dialect);
  const statements = new SemaphoreStatements(options.table, flavor, claimMs);
  const ghost = (key: string, permits: number, count: number): DriverPermitRequest => {
    return { key, ownerSecret: randomUUID(), holder: "crashed", ttlMs: GHOST_TTL_MS, permits, count };
  };
  return {
    async leave(name: string, permits: number, rows: Leftovers): Promise<string[]> {
      await statements.create(connection.db, name, permits);
      const secrets: string[] = [];
      await inWriteTransaction(connection.db, flavor, async (trx) => {
        await statements.lock(trx, name);
        const view = await statements.read(trx, name);
        if (rows.grant !== undefined) {
          const grant = ghost(name, permits, rows.grant);
          await statements.countGrant(trx, name, permits);
          await statements.insertGrant(trx, grant);
          secrets.push(grant.ownerSecret);
        }
        if (rows.place !== undefined) {
          const place = ghost(name, permits, rows.place);
          await statements.insertPlace(trx, place, view.nextTicket());
          secrets.push(place.ownerSecret);
        }
      });
      return secrets;
    },
    async removePlace(name: string, secret: string): Promise<void> {
      await inWriteTransaction(connection.db, flavor, async (trx) => {
        await statements.lock(trx, name);
        await statements.deletePlace(trx, name, secret);
      });
    },
    /** Grant and line rows of `name`, lapsed ones included. */
    async rows(name: string): Promise<number> {
      const view = await statements.read(connection.db, name);
      return view.holders.length + view.waiters.length + view.lapsed.length;
    },
    close: () => connection.close(),
  };
}

/** The SQL semaphores' own behaviour on `url`, beyond the conformance area: crashed rows, the line across providers, the stored count. */
export function describeSqlSemaphore(dialect: string, url: string): void {
  describe(`${dialect}: SQL semaphores`, () => {
    const providers: SqlLockProvider[] = [];
    const provider = () => {
      const created = new SqlLockProvider({ url, purgeIntervalMs: 0 });
      providers.push(created);
      return created;
    };
    const tables = [openTables(url, GHOST_CLAIM_MS), openTables(url, 60_000)] as const;
    afterEach(async () => {
      await Promise.all(providers.splice(0).map((p) => p.close()));
    });
    afterAll(async () => {
      await Promise.all(tables.map((t) => t.close()));
    });
    const semaphoreName = (label: string) => `sql-semaphore:${label}:${randomUUID()}`;

    it("a grant and a place left by a crashed process stop counting once they lapse on the database's clock, and are then deleted", async () => {
      await provider().migrate();
      const [shortLived] = tables;
      const name = semaphoreName("crashed");
      const startedAt = monotonicNow();
      await shortLived.leave(name, 2, { grant: 2, place: 2 });
      const semaphore = provider().semaphore(name, { permits: 2 });
      expect(await semaphore.tryAcquire()).toBeNull();
      // One permit would fit once the grant lapses, but the crashed waiter for two is ahead of it until its place lapses.
      const permit = await semaphore.acquire({ ttlMs: 5_000, waitMs: 5_000 });
      const waitedMs = monotonicNow() - startedAt;
      expect(waitedMs).toBeGreaterThanOrEqual(GHOST_CLAIM_MS - 5);
      expect(waitedMs).toBeLessThan(GHOST_CLAIM_MS + 1_500);
      expect(await shortLived.rows(name)).toBe(1);
      expect((await semaphore.inspect())?.holders).toEqual([expect.objectContaining({ count: 1, fencingToken: permit.fencingToken })]);
      await permit.release();
    });

    it("purging deletes what a crashed process left on a semaphore nobody uses any more, once it has lapsed", async () => {
      const locks = provider();
      await locks.migrate();
      const [shortLived] = tables;
      const name = semaphoreName("purged");
      await shortLived.leave(name, 2, { grant: 1 });
      expect(await shortLived.rows(name)).toBe(1);
      // The grant's lease is 200 ms; each purge with no idle time deletes what has lapsed by then.
      const purgedRows = async () => {
        await locks.purgeIdleLocks(0);
        return shortLived.rows(name);
      };
      await expect.poll(purgedRows, { timeout: 5_000, interval: 50 }).toBe(0);
    });

    it("a waiter for every permit holds back a later, smaller waiter of another provider, which is served after it", async () => {
      const name = semaphoreName("line");
      const [first, second] = [provider().semaphore(name, { permits: 3 }), provider().semaphore(name, { permits: 3 })];
      const holder = await first.acquire({ ttlMs: 30_000, count: 2 });
      const big = first.acquire({ ttlMs: 30_000, count: 3 });
      await expect.poll(async () => (await first.inspect())?.waiters, { timeout: 5_000 }).toBe(1);
      const small = second.acquire({ ttlMs: 30_000, count: 1 });
      await expect.poll(async () => (await second.inspect())?.waiters, { timeout: 5_000 }).toBe(2);
      // One permit is free, but the line comes first.
      expect(await second.tryAcquire()).toBeNull();
      await holder.release();
      const bigPermit = await big;
      expect(await second.inspect()).toMatchObject({ inUse: 3, waiters: 1 });
      await bigPermit.release();
      const smallPermit = await small;
      // Granted after the big one: had it passed the line while the holder kept two permits, its token would be smaller.
      expect(smallPermit.fencingToken as bigint).toBeGreaterThan(bigPermit.fencingToken as bigint);
      await smallPermit.release();
    });

    it("a line alone keeps the stored permit count: another count is refused with PERMITS_MISMATCH until the line is empty", async () => {
      await provider().migrate();
      const [, longLived] = tables;
      const name = semaphoreName("stored-count");
      const [placeSecret] = await longLived.leave(name, 2, { place: 1 });
      const other = provider().semaphore(name, { permits: 3 });
      const refused = await rejectionOf(other.tryAcquire());
      expect(LockError.is(refused, LockErrorCode.PermitsMismatch)).toBe(true);
      expect(refused as PermitsMismatchError).toMatchObject({ field: "options.permits", permits: 3, storedPermits: 2 });
      expect(LockError.is(await rejectionOf(other.acquire({ waitMs: 1_000 })), LockErrorCode.PermitsMismatch)).toBe(true);
      // The same count is not refused, but a newcomer yields to the line.
      expect(await provider().semaphore(name, { permits: 2 }).tryAcquire()).toBeNull();
      await longLived.removePlace(name, placeSecret as string);
      const permit = await other.acquire({ ttlMs: 5_000, count: 3 });
      expect((await other.inspect())?.permits).toBe(3);
      await permit.release();
    });
  });
}
