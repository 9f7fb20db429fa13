import type { SemaphoreState } from "../types.js";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait } from "./driver-attempt.js";

/** One attempt to take permits, as a semaphore driver receives it (validated, rounded, with a fresh owner secret). */
export interface DriverPermitRequest extends DriverAcquireRequest {
  /** How many permits the semaphore has; the driver refuses with `PermitsMismatchError` if it is in use with another count. */
  readonly permits: number;
  /** How many permits to take, all or nothing. */
  readonly count: number;
}

/**
 * What a backend implements for counting semaphores (`LockDriver.semaphores`); the provider adds validation, waiting,
 * the watchdog and lost-permit signals on top, as for locks. `key` is the semaphore's name throughout; every owner
 * secret is one grant (permits never re-enter). Every method is one atomic server operation.
 */
export interface SemaphoreDriver {
  /** One attempt: take `count` permits if that many are free and nobody waits ahead (a grant has `holdCount` 1). */
  tryAcquire(request: DriverPermitRequest): Promise<DriverGranted | DriverRefused>;
  /** Optional native waiting (server-side line, FIFO); rejects with `wait.signal.reason` and leaves nothing behind. */
  acquire?(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted>;
  /**
   * Optional, with `acquire`: true while a waiter of this driver waits on semaphore `name` (so its line is not empty):
   * an acquire then skips the attempt that would only be refused and goes straight to `acquire` (`LockDriver.isWatching`).
   */
  isWatching?(name: string): boolean;
  /** Extends each grant's lease if it is still held; one boolean per renewal, in order. */
  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]>;
  /** Gives a grant's permits back; false when the server no longer shows it held. */
  release(name: string, ownerSecret: string): Promise<boolean>;
  /** The server's view of the semaphore, or null when nobody holds or waits. */
  inspect(name: string): Promise<SemaphoreState | null>;
}
