import type { Lock } from "@distlock/core";
import { fencedUpdate } from "@distlock/fence/sql";
import { type BenchRow, type BenchScale, type BenchTable, measureOps, scaledCount, summarizeTurns, type TurnSample, turnOrder } from "../harness/index.js";
import { type BenchDb, ROW, TABLE } from "./price-table.js";

export const PLAIN_UPDATE = "plain UPDATE (kysely)";
export const FENCED_UPDATE = "fencedUpdate";
const ROUNDS = 6;
const ITERATIONS = 6_000;
const WARM_UP = 500;

type Update = (price: number) => Promise<unknown>;

/** One row, one client: a plain kysely UPDATE against the same UPDATE through `fencedUpdate`, in interleaved rounds. */
export async function fencedUpdateScenario(db: BenchDb, lock: Lock, scale: BenchScale): Promise<BenchTable> {
  const subjects: Array<[string, Update]> = [
    [PLAIN_UPDATE, (price) => db.updateTable(TABLE).set({ price }).where("sku", "=", ROW.sku).execute()],
    [FENCED_UPDATE, (price) => fencedUpdate(db, lock, { table: TABLE, where: ROW, set: { price } })],
  ];
  const perRound = Math.ceil(scaledCount(ITERATIONS, scale) / ROUNDS);
  for (const [, update] of subjects) for (let i = 0; i < scaledCount(WARM_UP, scale); i++) await update(i);
  const turns: TurnSample[][] = subjects.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [, update]] of turnOrder(subjects, round)) turns[index]?.push(await measureOps(update, perRound));
  }
  const rows: BenchRow[] = subjects.map(([subject], index) => ({
    scenario: "one UPDATE of one row",
    subject,
    metrics: summarizeTurns(turns[index] ?? [], false),
  }));
  return {
    id: "fence-sql-update",
    title: "PostgreSQL: one UPDATE of one row, plain against fenced (the lock is held throughout)",
    rows,
    baseline: PLAIN_UPDATE,
    ratioOf: "p50 µs",
    notes: [
      `- ${ROUNDS} interleaved rounds of ${perRound} updates per subject; each metric is the median round; one pg pool of 1 connection`,
      "- fencedUpdate adds `AND (fence_token IS NULL OR fence_token <= $n)` and stores the token: one statement, no extra round trip",
    ],
  };
}
