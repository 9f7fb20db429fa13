import type { RawBuilder } from "kysely";

/** The SQL fragments in which the dialects differ; everything else is written once. */
export interface LockSqlFlavor {
  /** The database server's clock in epoch milliseconds, constant within one statement. */
  readonly nowMs: RawBuilder<number>;
  /** The larger of two numbers. */
  greatest(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
  /** `expr` as text, so bigints survive drivers that return numbers. */
  asText(expr: RawBuilder<unknown>): RawBuilder<string>;
  /** First statement of a purge transaction: keeps acquisitions from reading the fencing floor until it commits. */
  lockFloor(table: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * Whether `INSERT … SELECT` (or a subquery in `VALUES`) takes shared locks on the rows it reads, as InnoDB does
   * under REPEATABLE READ: two waiters joining one line in the same instant would then deadlock on each other.
   */
  readonly lockingInsertReads: boolean;
  /** True where `column` starts with `prefix`, taken literally and compared byte for byte (no pattern, no case folding). */
  startsWith(column: RawBuilder<unknown>, prefix: string): RawBuilder<boolean>;
  /** `column` as an ORDER BY term that sorts keys by their bytes, whatever the column's collation. */
  byteOrder(column: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The tail of an `INSERT` that runs `set` instead when a row with the same `key` columns exists. */
  onConflict(key: RawBuilder<unknown>, set: RawBuilder<unknown>): RawBuilder<unknown>;
  /** A bound integer parameter, cast so the dialect types it as a number. */
  integer(value: number): RawBuilder<number>;
  /**
   * Opens a transaction in which each statement sees what was committed before it ran once the transaction holds a
   * row lock (PostgreSQL: READ COMMITTED whatever the server's default; SQLite: the database's write lock at once).
   */
  readonly beginWrite: RawBuilder<unknown>;
  /**
   * Sent right after `beginWrite` where the server can end a transaction whose client went quiet inside it: a client
   * paused between two statements (a GC pause, SIGSTOP) would otherwise keep the row lock, and every other process
   * waiting on it, until it resumed. Undefined where no such limit exists.
   */
  readonly boundIdleWrite?: RawBuilder<unknown>;
  /** The tail of a SELECT that locks the rows it reads until the transaction ends (empty where `beginWrite` already excludes every writer). */
  readonly forUpdate: RawBuilder<unknown>;
}
