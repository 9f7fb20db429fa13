import { validateReadWriteName } from "../options/validate-read-write.js";
import type { Semaphores } from "../semaphore/semaphores.js";
import type { ReadWriteLock } from "../types.js";
import { DriverReadWriteLock } from "./driver-read-write-lock.js";
import { OwnerGrants } from "./owner-grants.js";
import type { ReadWriteRuntime } from "./read-write-side.js";

/** The read-write locks of one provider, each on a semaphore of the provider's `Semaphores`, sharing one record of their grants. */
export class ReadWriteLocks {
  readonly #semaphores: Semaphores;
  readonly #runtime: ReadWriteRuntime;

  constructor(backend: string, semaphores: Semaphores, assertOpen: () => void) {
    this.#semaphores = semaphores;
    this.#runtime = { backend, grants: new OwnerGrants(), assertOpen };
  }

  open(name: unknown): ReadWriteLock {
    validateReadWriteName(name);
    return new DriverReadWriteLock(name, this.#semaphores.openForReadWrite(name), this.#runtime);
  }

  /** Forgets the grants; the provider's close has released them with the semaphores' permits. */
  close(): void {
    this.#runtime.grants.clear();
  }
}
