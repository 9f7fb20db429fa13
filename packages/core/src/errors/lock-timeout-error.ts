import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** `acquire` waited `waitMs` without getting the key. */
export class LockTimeoutError extends LockError {
  readonly key: string;
  readonly waitedMs: number;

  constructor(key: string, waitedMs: number) {
    super(
      LockErrorCode.LockTimeout,
      `Timed out after ${Math.round(waitedMs)} ms waiting for lock "${key}"; raise waitMs or check who holds it with inspect().`,
    );
    this.key = key;
    this.waitedMs = waitedMs;
  }
}
