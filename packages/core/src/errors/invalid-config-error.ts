import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** Provider configuration is unusable; `field` names which part. Never contains credentials. */
export class InvalidConfigError extends LockError {
  readonly field: string;

  constructor(field: string, problem: string, options?: ErrorOptions) {
    super(LockErrorCode.InvalidConfig, `Invalid config ${field}: ${problem}.`, options);
    this.field = field;
  }
}
