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

/** How many times a statement the database rolled back to break a lock conflict is sent again before that is an error. */
export const LOCK_CONFLICT_RETRIES = 3;

/**
 * `statement`, sent again (up to `retries` times) while the database rolls its transaction back to break a lock
 * conflict: nothing of it was kept, so sending it again is as if it had been sent once. InnoDB picks such victims even
 * among statements on different keys (its gap locks), and says so: "try restarting transaction".
 */
export function retryingLockConflicts<T>(statement: () => Promise<T>, retries = LOCK_CONFLICT_RETRIES): Promise<T> {
  return statement().catch((error: unknown) => (retries > 0 && isLockConflict(error) ? retryingLockConflicts(statement, retries - 1) : Promise.reject(error)));
}
