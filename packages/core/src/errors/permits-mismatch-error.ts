import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** A semaphore was used with another permit count than the one it is in use with on the server. */
export class PermitsMismatchError extends LockError {
  /** The option that disagrees. */
  readonly field = "options.permits";
  /** The semaphore's name. */
  readonly semaphore: string;
  /** The count this caller opened the semaphore with. */
  readonly permits: number;
  /** The count the semaphore is in use with. */
  readonly storedPermits: number;

  /** `permits` is what the caller asked for, `storedPermits` what the server holds the semaphore with. */
  constructor(semaphore: string, permits: number, storedPermits: number) {
    super(
      LockErrorCode.PermitsMismatch,
      `Invalid options.permits: semaphore "${semaphore}" is in use with ${storedPermits} permits, not ${permits}; open it with ${storedPermits} everywhere (it takes a new count once nobody holds or waits).`,
    );
    this.semaphore = semaphore;
    this.permits = permits;
    this.storedPermits = storedPermits;
  }
}
