import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The provider was closed; build a new one. */
export class ProviderClosedError extends LockError {
  constructor(backend: string) {
    super(LockErrorCode.ProviderClosed, `The ${backend} lock provider is closed; create a new one.`);
  }
}
