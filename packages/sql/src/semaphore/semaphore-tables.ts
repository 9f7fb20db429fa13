/** The tables of the semaphores that go with one lock table (migration 0005); each name is the lock table's plus a suffix. */
export interface SemaphoreTables {
  /** One row per semaphore: its name, the permit count it is in use with, and its fencing counter; locked by every change. */
  readonly semaphore: string;
  /** One row per grant: owner secret, holder label, permit count, fencing token and lease expiry. */
  readonly holder: string;
  /** The line of waiters: one row per waiting owner, with its ticket, permit count and the expiry of its place. */
  readonly waiter: string;
}

/**
 * The semaphore tables of lock table `table`. The suffixes are at most 11 characters, so with a table name of the
 * longest accepted length (48) every name, and `<name>_pk`, fits PostgreSQL's 63-character identifiers.
 */
export function semaphoreTables(table: string): SemaphoreTables {
  return { semaphore: `${table}_sem`, holder: `${table}_sem_holder`, waiter: `${table}_sem_waiter` };
}
