import type { LockErrorCode } from "./error-codes.js";

const LOCK_ERROR_BRAND = Symbol.for("@distlock/core/LockError");

/** Base of every distlock error; match on `code`, never on the message. */
export class LockError extends Error {
  readonly code: LockErrorCode;

  constructor(code: LockErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.defineProperty(this, LOCK_ERROR_BRAND, { value: true });
  }

  /** True for any distlock error, also one thrown by another copy of this package; narrows by code when given. */
  static is(error: unknown, code?: LockErrorCode): error is LockError {
    if (typeof error !== "object" || error === null) return false;
    if ((error as Record<symbol, unknown>)[LOCK_ERROR_BRAND] !== true) return false;
    return code === undefined || (error as LockError).code === code;
  }
}
