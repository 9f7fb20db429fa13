import type { Migration } from "kysely";
import { DEFAULT_FENCE_COLUMN } from "./fence-spec.js";
import type { AnyDb } from "./sql-dialect.js";
import { checkIdentifier } from "./sql-names.js";
import { DEFAULT_VERSION_COLUMN } from "./versioned-update.js";

/** Adds the nullable BIGINT column a fenced write keeps its token in (NULL: never written under a fence). */
export async function addFenceColumn(db: AnyDb, table: string, column: string = DEFAULT_FENCE_COLUMN): Promise<void> {
  await db.schema.alterTable(checkIdentifier(table, "table")).addColumn(checkIdentifier(column, "column"), "bigint").execute();
}

/** Adds the BIGINT NOT NULL DEFAULT 0 column an optimistic write counts versions in. */
export async function addVersionColumn(db: AnyDb, table: string, column: string = DEFAULT_VERSION_COLUMN): Promise<void> {
  await db.schema
    .alterTable(checkIdentifier(table, "table"))
    .addColumn(checkIdentifier(column, "column"), "bigint", (definition) => definition.notNull().defaultTo(0))
    .execute();
}

/** A kysely `Migration` that adds (and, down, drops) the fence column, for a project's own migration list. */
export function fenceColumnMigration(table: string, column: string = DEFAULT_FENCE_COLUMN): Migration {
  checkIdentifier(table, "table");
  checkIdentifier(column, "column");
  return {
    up: (db) => addFenceColumn(db, table, column),
    down: async (db) => {
      await db.schema.alterTable(table).dropColumn(column).execute();
    },
  };
}
