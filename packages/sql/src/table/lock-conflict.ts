/** SQLSTATEs of a transaction the database rolled back to break a deadlock (40P01) or a serialization conflict (40001). */
const CONFLICT_STATES: ReadonlySet<string> = new Set(["40001", "40P01"]);

/**
 * True when the database ended `error`'s transaction to break a lock conflict, leaving nothing of it behind: pg's
 * `code` 40P01/40001; mysql2's `sqlState` 40001 (`ER_LOCK_DEADLOCK`, InnoDB's victim).
 */
export function isLockConflict(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, sqlState } = error as { code?: unknown; sqlState?: unknown };
  return CONFLICT_STATES.has(String(code)) || CONFLICT_STATES.has(String(sqlState));
}
