import { addFenceColumn } from "@distlock/fence/sql";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";

/** The demo's protected resource: a SQLite file with one product whose price the workers update. */
// biome-ignore lint/suspicious/noExplicitAny: a one-table demo schema.
export type PriceShop = Kysely<any>;

export const PRICE_KEY = "demo:price:A-1";
export const PRODUCT = { table: "product", where: { sku: "A-1" } } as const;

/** Opens the shop file (creating the product table with its fence column on first use). */
export async function openPriceShop(file: string, create = false): Promise<PriceShop> {
  const db: PriceShop = new Kysely({ dialect: new SqliteDialect({ database: new Database(file) }) });
  if (create) {
    await db.schema
      .createTable(PRODUCT.table)
      .addColumn("sku", "text", (column) => column.primaryKey())
      .addColumn("price", "integer", (column) => column.notNull())
      .execute();
    await addFenceColumn(db, PRODUCT.table);
    await db.insertInto(PRODUCT.table).values({ sku: "A-1", price: 100 }).execute();
  }
  return db;
}

export async function priceOf(db: PriceShop): Promise<number> {
  const row = await db.selectFrom(PRODUCT.table).select("price").where("sku", "=", PRODUCT.where.sku).executeTakeFirstOrThrow();
  return Number(row.price);
}
