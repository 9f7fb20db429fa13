import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The backend does not build this primitive (its capability flag is false). */
export class NotSupportedError extends LockError {
  readonly backend: string;
  readonly feature: string;

  constructor(backend: string, feature: string) {
    super(LockErrorCode.NotSupported, `The ${backend} backend has no ${feature} yet (capabilities say so); use a backend whose capabilities include it.`);
    this.backend = backend;
    this.feature = feature;
  }
}
