import { sql } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";

/**
 * Runs `work` in a transaction on one reserved connection, opened with the dialect's `beginWrite`; commits, or rolls
 * back and rethrows. The rollback is also sent after a failed begin or commit, so the connection never goes back to
 * the pool inside a transaction (where a rollback finds none, its error is ignored).
 */
export function inWriteTransaction<T>(db: AnyKysely, flavor: LockSqlFlavor, work: (trx: AnyKysely) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    try {
      await flavor.beginWrite.execute(connection);
      if (flavor.boundIdleWrite !== undefined) await flavor.boundIdleWrite.execute(connection);
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}
