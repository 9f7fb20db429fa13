import { LockError, LockErrorCode, type LockProvider, withLock } from "@distlock/core";

/** What a contended run did. */
export interface ContendedRunResult {
  /** Critical sections that ran, one per worker turn. */
  readonly turns: number;
  /** Callers that gave up waiting. */
  readonly timeouts: number;
}

export interface ContendedRunOptions {
  readonly key?: string;
  /** Workers taking turns on the key. @default 3 */
  readonly workers?: number;
  /** Turns per worker. @default 4 */
  readonly turnsPerWorker?: number;
  /** Called while a worker holds the key and the others wait (e.g. to look at the metrics mid-run). */
  readonly whileHeld?: () => Promise<void>;
}

/**
 * Workers take turns on one key, each turn a short critical section; while the first turn holds the key, an impatient
 * caller (`waitMs` 20) gives up, so the run has waits, holds and one timeout.
 */
export async function contendedRun(locks: LockProvider, options: ContendedRunOptions = {}): Promise<ContendedRunResult> {
  const { key = "inventory:sku-1", workers = 3, turnsPerWorker = 4, whileHeld } = options;
  let turns = 0;
  let timeouts = 0;
  const first = await locks.acquire(key);
  const worker = async () => {
    for (let turn = 0; turn < turnsPerWorker; turn++) {
      await withLock(locks, key, async () => {
        turns += 1;
        await new Promise<void>((resolve) => setImmediate(resolve));
      });
    }
  };
  const running = Array.from({ length: workers }, worker);
  await locks.acquire(key, { waitMs: 20 }).then(
    (lock) => lock.release(),
    (error: unknown) => {
      if (!LockError.is(error, LockErrorCode.LockTimeout)) throw error;
      timeouts += 1;
    },
  );
  await whileHeld?.();
  await first.release();
  await Promise.all(running);
  return { turns, timeouts };
}
