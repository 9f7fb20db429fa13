import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** An optimistic write found another version than the one it read, on every one of its attempts. */
export class VersionConflictError extends LockError {
  /** The resource that kept changing, e.g. `table "product"`. */
  readonly resource: string;
  readonly attempts: number;

  constructor(resource: string, attempts: number) {
    super(
      LockErrorCode.VersionConflict,
      `${resource} changed under ${attempts} optimistic attempt${attempts === 1 ? "" : "s"}; nothing was written by the last one. Retry later, raise maxAttempts, or take a lock.`,
    );
    this.resource = resource;
    this.attempts = attempts;
  }
}
