import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** An owner holding a read-write lock's read side asked for its write side; refused before any server call. */
export class UpgradeRefusedError extends LockError {
  /** The read-write lock's name. */
  readonly readWriteLock: string;

  constructor(readWriteLock: string) {
    super(
      LockErrorCode.UpgradeRefused,
      `Read-write lock "${readWriteLock}": this owner holds read and asked for write, and a read hold is never upgraded (two readers upgrading would wait for each other forever); release every read hold first, or take write from the start (write lets the same owner read too).`,
    );
    this.readWriteLock = readWriteLock;
  }
}
