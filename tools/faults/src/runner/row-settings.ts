/** How hard one row of the matrix pushes. */
export interface RowSettings {
  /** Worker processes contending for the key. @default 3 */
  workers: number;
  /** Injections of the row's fault, one after another. @default 1 */
  injections: number;
  /** Running time before the first injection. @default 300 */
  warmupMs: number;
  /** Running time after each injection has recovered. @default 300 */
  gapMs: number;
  /** A critical section sleeps a random time in this range between its two writes. @default [5, 40] */
  holdMs: readonly [number, number];
  /** Pause between a release and the next attempt. @default 5 */
  thinkMs: number;
  /** Longest a worker may go without the key while the backend is up (outages and their grace excluded). @default 10_000 */
  livenessBoundMs: number;
  /** Loops per worker process, contending on its one provider. @default 2 */
  lockersPerWorker: number;
  /** Permits of a semaphore row's semaphore. @default 3 */
  semaphorePermits: number;
  /**
   * Permits a semaphore row's lockers ask for, by locker of a process (`w3` the first, `w3/1` the second, …, cycling):
   * one process's lockers can hold them all, and a grant of 2 waits while only 1 is free. @default [1, 2]
   */
  permitCounts: readonly number[];
  /** Shared lock keys of a multi-key row. @default 4 */
  multiKeys: number;
  /** A multi-key row's lockers each time take a set of this many of its keys, the size drawn at random in [min, max]. @default [2, 3] */
  keysPerSet: readonly [number, number];
}

export const DEFAULT_ROW_SETTINGS: Readonly<RowSettings> = Object.freeze({
  workers: 3,
  injections: 1,
  warmupMs: 300,
  gapMs: 300,
  holdMs: [5, 40] as const,
  thinkMs: 5,
  livenessBoundMs: 10_000,
  lockersPerWorker: 2,
  semaphorePermits: 3,
  permitCounts: [1, 2] as const,
  multiKeys: 4,
  keysPerSet: [2, 3] as const,
});

/** The long form (`--long`): more workers, more injections, longer runs. */
export const LONG_ROW_SETTINGS: Readonly<RowSettings> = Object.freeze({
  ...DEFAULT_ROW_SETTINGS,
  workers: 6,
  injections: 5,
  warmupMs: 1_000,
  gapMs: 1_500,
  holdMs: [5, 60] as const,
});
