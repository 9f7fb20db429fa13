import type { ReadWriteAccess, ReadWriteLock, ReadWriteLockState, Semaphore } from "../types.js";
import { type ReadWriteRuntime, ReadWriteSide } from "./read-write-side.js";
import { readWriteState } from "./read-write-state.js";

/** A read-write lock of one provider, over the semaphore core keeps for it (see `ReadWriteSide`). */
export class DriverReadWriteLock implements ReadWriteLock {
  readonly name: string;
  readonly read: ReadWriteAccess;
  readonly write: ReadWriteAccess;
  readonly #semaphore: Semaphore;

  constructor(name: string, semaphore: Semaphore, runtime: ReadWriteRuntime) {
    this.name = name;
    this.#semaphore = semaphore;
    this.read = new ReadWriteSide(name, "read", semaphore, runtime);
    this.write = new ReadWriteSide(name, "write", semaphore, runtime);
  }

  async inspect(): Promise<ReadWriteLockState | null> {
    return readWriteState(this.name, await this.#semaphore.inspect());
  }
}
