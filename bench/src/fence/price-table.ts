import { addFenceColumn, addVersionColumn } from "@distlock/fence/sql";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";

// biome-ignore lint/suspicious/noExplicitAny: a one-table bench schema.
export type BenchDb = Kysely<any>;

export const TABLE = "bench_product";
export const ROW = { sku: "A-1" } as const;

/** A kysely instance on `url` with the bench's product table (fence and version columns included) and its one row. */
export async function openPriceTable(url: string, poolSize: number): Promise<BenchDb> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on("error", () => undefined);
  const db: BenchDb = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await db.schema.dropTable(TABLE).ifExists().execute();
  await db.schema
    .createTable(TABLE)
    .addColumn("sku", "text", (column) => column.primaryKey())
    .addColumn("price", "integer", (column) => column.notNull())
    .execute();
  await addFenceColumn(db, TABLE);
  await addVersionColumn(db, TABLE);
  await db
    .insertInto(TABLE)
    .values({ ...ROW, price: 0 })
    .execute();
  return db;
}
