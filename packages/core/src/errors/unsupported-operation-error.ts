import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The backend cannot do what was asked (see `capabilities`); `operation` names the call. Raised before any server call. */
export class UnsupportedOperationError extends LockError {
  readonly backend: string;
  readonly operation: string;

  constructor(backend: string, operation: string, reason: string) {
    super(LockErrorCode.UnsupportedOperation, `The ${backend} backend does not support ${operation}: ${reason}.`);
    this.backend = backend;
    this.operation = operation;
  }
}
