import type { LockProvider } from "@distlock/core";
import { withLock } from "@distlock/core";
import { fencedUpdate, optimisticUpdate } from "@distlock/fence/sql";
import { type BenchRow, type BenchScale, type BenchTable, scaledMs } from "../harness/index.js";
import { type BenchDb, ROW, TABLE } from "./price-table.js";

export const OPTIMISTIC = "optimisticUpdate";
export const LOCKED = "withLock + fencedUpdate";
export const WORKERS = 16;
const WINDOW_MS = 5_000;

interface Tally {
  successes: number;
  conflicts: number;
  giveUps: number;
}

/** W workers increment one row's price for a fixed window: optimistically (read, compute, compare-and-set), or under a lock. */
export async function optimisticContentionScenario(db: BenchDb, locks: LockProvider, scale: BenchScale): Promise<BenchTable> {
  const windowMs = scaledMs(WINDOW_MS, scale);
  const increment = { table: TABLE, where: ROW, update: (row: { price: number }) => ({ price: row.price + 1 }) };
  const optimistic = await runWindow(windowMs, async (tally) => {
    try {
      const result = await optimisticUpdate(db, increment, { maxAttempts: 50 });
      tally.successes++;
      tally.conflicts += result.conflicts;
    } catch {
      tally.giveUps++;
    }
  });
  const locked = await runWindow(windowMs, async (tally) => {
    await withLock(locks, "bench:fence:price", async (lock) => {
      const row = await db.selectFrom(TABLE).select("price").where("sku", "=", ROW.sku).executeTakeFirstOrThrow();
      await fencedUpdate(db, lock, { table: TABLE, where: ROW, set: { price: row.price + 1 } });
    });
    tally.successes++;
  });
  const rows: BenchRow[] = [
    { scenario: `W=${WORKERS} on one row`, subject: OPTIMISTIC, metrics: metricsOf(optimistic, windowMs) },
    { scenario: `W=${WORKERS} on one row`, subject: LOCKED, metrics: metricsOf(locked, windowMs) },
  ];
  return {
    id: "fence-sql-optimistic-w16",
    title: `PostgreSQL: ${WORKERS} workers increment one row for ${windowMs / 1000} s, optimistically or under a lock`,
    rows,
    baseline: LOCKED,
    ratioOf: "updates/s",
    notes: [
      `- one process, ${WORKERS} concurrent async workers, a pg pool of ${WORKERS}; optimisticUpdate: maxAttempts 50, jittered backoff from 5 ms doubling to 200 ms`,
      "- retries/success: the attempts that found the version moved, per successful update",
    ],
  };
}

async function runWindow(windowMs: number, work: (tally: Tally) => Promise<void>): Promise<Tally> {
  const tally: Tally = { successes: 0, conflicts: 0, giveUps: 0 };
  const until = performance.now() + windowMs;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (performance.now() < until) await work(tally);
    }),
  );
  return tally;
}

function metricsOf(tally: Tally, windowMs: number): Record<string, number> {
  return {
    "updates/s": tally.successes / (windowMs / 1000),
    "retries/success": tally.conflicts / Math.max(1, tally.successes),
    "give-ups": tally.giveUps,
  };
}
