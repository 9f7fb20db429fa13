import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** The resource refused a write: it has already seen a larger fencing token, so this holder's lock was superseded. */
export class FencedOutError extends LockError {
  /** The resource that refused, e.g. `table "product"` or `redis key "price:1"`. */
  readonly resource: string;
  readonly fencingToken: bigint;
  /** The token the resource holds, when it could be read. */
  readonly storedToken: bigint | null;

  constructor(resource: string, fencingToken: bigint, storedToken: bigint | null) {
    const stored = storedToken === null ? "a larger token" : `token ${storedToken}`;
    super(
      LockErrorCode.FencedOut,
      `${resource} refused the write of fencing token ${fencingToken}: it has seen ${stored}, so a later holder took the lock; nothing was changed.`,
    );
    this.resource = resource;
    this.fencingToken = fencingToken;
    this.storedToken = storedToken;
  }
}
