import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** A call argument is unusable; `field` names which one. Raised before any server call. */
export class InvalidArgumentError extends LockError {
  readonly field: string;

  constructor(field: string, problem: string, options?: ErrorOptions) {
    super(LockErrorCode.InvalidArgument, `Invalid ${field}: ${problem}.`, options);
    this.field = field;
  }
}
