import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** Provider configuration is unusable; `field` names which part. Never contains credentials. */
export class InvalidConfigError extends LockError {
  /** The part of the configuration that is wrong: `options.<name>`, `config.<name>`, `url.<param>`, `url.scheme`, … */
  readonly field: string;

  /** `problem` says what to change; it must not contain credentials (`LockUrl.redacted` is safe). */
  constructor(field: string, problem: string, options?: ErrorOptions) {
    super(LockErrorCode.InvalidConfig, `Invalid config ${field}: ${problem}.`, options);
    this.field = field;
  }
}
