import type { Violation } from "../checker/violation.js";
import type { Primitive } from "../matrix/primitive.js";

/** What a semaphore row adds to its result. */
export interface SemaphoreRowStats {
  readonly permits: number;
  /** Permits the lockers of one process ask for, one entry per locker. */
  readonly counts: readonly number[];
  /** Acts: steps of work done under permits (each only while the permit's signal had not aborted). */
  readonly acts: number;
  /** Grants whose signal aborted (`LOCK_LOST`) while they were held. */
  readonly holdsLost: number;
  /** The most permits believed held at one instant (never more than `permits` in a row without violations). */
  readonly peakHeld: number;
}

/** What a multi-key row adds to its result. */
export interface MultiKeyRowStats {
  /** Shared keys the sets are drawn from. */
  readonly keys: number;
  /** Keys per set: [min, max]. */
  readonly keysPerSet: readonly [number, number];
  /** Lockers that did not finish when told to stop (killed processes apart): a deadlock would leave some. */
  readonly stuckLockers: number;
  /** The longest the server showed a killed process's key still held by it after its death; null without a kill, or if a probe gave up. */
  readonly longestHeldAfterDeathMs: number | null;
}

/** One row of the fault matrix. */
export interface RowResult {
  readonly backend: string;
  readonly fault: string;
  readonly primitive: Primitive;
  readonly workers: number;
  /** Successful acquisitions (a semaphore's grants). */
  readonly operations: number;
  readonly faultsInjected: number;
  readonly writesAccepted: number;
  /** Writes the resource refused (FENCED_OUT). */
  readonly writesRejected: number;
  /** Writes that got no answer (etcd down or cut off): not accepted as far as their writer knows. */
  readonly writesFailed: number;
  /** Writes sent after the writer's own validity deadline (all must have been rejected or harmless). */
  readonly staleWrites: number;
  /** Stale writes the resource accepted: fencing allows one only while no later holder has written. */
  readonly staleWritesAccepted: number;
  /**
   * Stale writes the resource accepted from the holds a fault paused (holder-sigstop): 0 when each was overtaken before
   * it went on. A stale write of another hold (its process starved past its deadline, nobody took the key meanwhile) is
   * harmless and can happen on a loaded machine.
   */
  readonly pausedStaleWritesAccepted: number;
  readonly violations: readonly Violation[];
  /**
   * Overlaps on a backend that leaves them to fencing (`BackendFixture.fencedOverlaps`), in a row where fencing held:
   * no write with a lower or reused token was accepted. Not counted in `violations`.
   */
  readonly fencedOverlaps: readonly Violation[];
  /** Longest time from an injected fault to the next successful acquisition by anyone; null if none followed. */
  readonly recoveryMs: number | null;
  readonly durationMs: number;
  /** Workers that failed on their own (not through an injected fault). */
  readonly workerFailures: readonly string[];
  /** Set on a semaphore row that ran (whose holders do not write: every `writes…` count is 0). */
  readonly semaphore?: SemaphoreRowStats;
  /** Set on a multi-key row that ran (`operations` counts its sets, `writes…` every key's writes). */
  readonly multiKey?: MultiKeyRowStats;
  /**
   * Set on a row that could not run to its end: its servers did not start, or its set-up, a fault's injection or the
   * wait for the key to be acquired again threw. Says why, in one line. Its counts are zero and no history was checked:
   * a failed row, whatever else it shows.
   */
  readonly failure?: string;
}
