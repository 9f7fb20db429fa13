import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The backend could not be reached or answered with an error; the driver error is in `cause`. */
export class BackendUnavailableError extends LockError {
  readonly backend: string;

  constructor(backend: string, problem: string, options?: ErrorOptions) {
    super(LockErrorCode.BackendUnavailable, `${backend} backend unavailable: ${problem}.`, options);
    this.backend = backend;
  }
}
