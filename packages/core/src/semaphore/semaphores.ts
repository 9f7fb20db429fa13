import type { LockDriver } from "../driver/lock-driver.js";
import type { SemaphoreDriver } from "../driver/semaphore-driver.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { UnsupportedOperationError } from "../errors/unsupported-operation-error.js";
import { MAX_READERS, READ_WRITE_NAME_PREFIX } from "../options/defaults.js";
import { validateKey } from "../options/validate-acquire.js";
import { validateSemaphoreOptions } from "../options/validate-semaphore.js";
import type { LockProvider, Semaphore } from "../types.js";
import { DriverSemaphore, inspectSemaphore, type SemaphoreRuntime } from "./driver-semaphore.js";
import { PermitLockDriver } from "./permit-lock-driver.js";

/**
 * The semaphores of one provider: one permit count per name (a second count for a name is refused before any server
 * call), and one lock machinery for all their permits (read-write locks' included), made on first use and closed with
 * the provider.
 */
export class Semaphores {
  readonly #driver: LockDriver;
  readonly #makeEngine: (driver: LockDriver) => LockProvider;
  readonly #assertOpen: () => void;
  readonly #permitsByName = new Map<string, number>();
  #runtime: SemaphoreRuntime | undefined;

  /** `makeEngine` builds the lock machinery over a lock driver, as the provider's own. */
  constructor(driver: LockDriver, makeEngine: (driver: LockDriver) => LockProvider, assertOpen: () => void) {
    this.#driver = driver;
    this.#makeEngine = makeEngine;
    this.#assertOpen = assertOpen;
  }

  open(name: unknown, options: unknown): Semaphore {
    validateKey(name, "name");
    const permits = validateSemaphoreOptions(options);
    if (name.startsWith(READ_WRITE_NAME_PREFIX)) {
      throw new InvalidArgumentError(
        "name",
        `must not start with "${READ_WRITE_NAME_PREFIX}": such semaphores belong to read-write locks (provider.readWriteLock)`,
      );
    }
    this.#assertOpen();
    const semaphores = this.#supported("semaphore", "counting semaphores are not built on it (capabilities.semaphore is false)");
    const known = this.#permitsByName.get(name);
    if (known !== undefined && known !== permits) {
      throw new InvalidArgumentError("options.permits", `semaphore "${name}" was opened with ${known} permits in this provider, not ${permits}`);
    }
    this.#permitsByName.set(name, permits);
    return this.#semaphore(name, permits, semaphores);
  }

  /**
   * The semaphore under the read-write lock `name` (already checked): `MAX_READERS` permits, named with
   * `READ_WRITE_NAME_PREFIX`, which `open` refuses, so no semaphore of a provider shares it.
   */
  openForReadWrite(name: string): Semaphore {
    this.#assertOpen();
    const semaphores = this.#supported(
      "readWriteLock",
      "read-write locks are built on counting semaphores, which it does not have (capabilities.semaphore is false)",
    );
    return this.#semaphore(`${READ_WRITE_NAME_PREFIX}${name}`, MAX_READERS, semaphores);
  }

  /** Aborts the permits' waits, releases the permits still held (best effort) and stops renewing them. */
  async close(): Promise<void> {
    await this.#runtime?.engine.close();
  }

  /** The driver's semaphores, or `UnsupportedOperationError` for `operation` where it has none. */
  #supported(operation: string, reason: string): SemaphoreDriver {
    const semaphores = this.#driver.semaphores;
    if (!this.#driver.capabilities.semaphore || semaphores === undefined) throw new UnsupportedOperationError(this.#driver.backend, operation, reason);
    return semaphores;
  }

  #semaphore(name: string, permits: number, semaphores: SemaphoreDriver): Semaphore {
    this.#runtime ??= this.#makeRuntime(semaphores);
    return new DriverSemaphore(name, permits, this.#runtime);
  }

  #makeRuntime(semaphores: SemaphoreDriver): SemaphoreRuntime {
    const driver = new PermitLockDriver(this.#driver.backend, this.#driver.capabilities, semaphores);
    const backend = this.#driver.backend;
    return {
      engine: this.#makeEngine(driver),
      driver,
      inspect: (name) => inspectSemaphore(backend, (n) => semaphores.inspect(n), name),
      assertOpen: this.#assertOpen,
    };
  }
}
