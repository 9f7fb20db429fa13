import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The hold can no longer be proven: it expired, was taken over, force-released, or the server stopped answering. */
export class LockLostError extends LockError {
  readonly key: string;

  constructor(key: string, reason: string, options?: ErrorOptions) {
    super(LockErrorCode.LockLost, `Lock "${key}" was lost: ${reason}.`, options);
    this.key = key;
  }
}
