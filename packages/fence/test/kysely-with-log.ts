import { type Dialect, Kysely } from "kysely";
import type { AnyDb } from "../src/sql/sql-dialect.js";

/** A kysely instance that records the SQL of every statement it sends, so a test can show that none was sent. */
export function kyselyWithLog(dialect: Dialect): { db: AnyDb; statements: string[] } {
  const statements: string[] = [];
  const db = new Kysely({ dialect, log: (event) => void statements.push(event.query.sql) });
  return { db, statements };
}
