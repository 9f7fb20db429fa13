import { sql } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";

/** What a transaction's work decided: `keep` commits it, anything else rolls it back; `result` is answered either way. */
export interface TransactionOutcome<T> {
  readonly keep: boolean;
  readonly result: T;
}

/**
 * Runs `work` in a transaction on one reserved connection, opened with the dialect's `beginWrite`; commits, or rolls
 * back and rethrows. The rollback is also sent after a failed begin or commit, so the connection never goes back to
 * the pool inside a transaction (where a rollback finds none, its error is ignored).
 */
export function inWriteTransaction<T>(db: AnyKysely, flavor: LockSqlFlavor, work: (trx: AnyKysely) => Promise<T>): Promise<T> {
  return inDecidedWriteTransaction(db, flavor, async (trx) => ({ keep: true, result: await work(trx) }));
}

/** `inWriteTransaction` whose `work` decides whether to commit or to roll back what it did (see `TransactionOutcome`). */
export function inDecidedWriteTransaction<T>(db: AnyKysely, flavor: LockSqlFlavor, work: (trx: AnyKysely) => Promise<TransactionOutcome<T>>): Promise<T> {
  return db.connection().execute(async (connection) => {
    try {
      await flavor.beginWrite.execute(connection);
      if (flavor.boundIdleWrite !== undefined) await flavor.boundIdleWrite.execute(connection);
      const { keep, result } = await work(connection);
      await sql.raw(keep ? "commit" : "rollback").execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}
