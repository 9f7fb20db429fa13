import { validatePermitOptions } from "../options/validate-semaphore.js";
import { newOwnerSecret } from "../owner/owner-context.js";
import { callDriver } from "../provider/driver-calls.js";
import type { LockProvider, Permit, PermitAcquireOptions, Semaphore, SemaphoreState } from "../types.js";
import { PermitHandle } from "./permit-handle.js";
import type { PermitLockDriver } from "./permit-lock-driver.js";

/** What a semaphore of a provider runs on. */
export interface SemaphoreRuntime {
  /** The lock machinery over `driver`, keyed by semaphore name. */
  readonly engine: LockProvider;
  readonly driver: PermitLockDriver;
  /** The server's view of a semaphore. */
  inspect(name: string): Promise<SemaphoreState | null>;
  /** Throws `ProviderClosedError` once the provider is closed. */
  assertOpen(): void;
}

/** A counting semaphore of one provider: each acquire is a fresh owner (a permit never re-enters) asking for `count` permits. */
export class DriverSemaphore implements Semaphore {
  readonly name: string;
  readonly permits: number;
  readonly #runtime: SemaphoreRuntime;

  constructor(name: string, permits: number, runtime: SemaphoreRuntime) {
    this.name = name;
    this.permits = permits;
    this.#runtime = runtime;
  }

  acquire(options?: PermitAcquireOptions): Promise<Permit> {
    return this.#take(options, (engine, name, lockOptions) => engine.acquire(name, lockOptions)) as Promise<Permit>;
  }

  tryAcquire(options?: PermitAcquireOptions): Promise<Permit | null> {
    return this.#take(options, (engine, name, lockOptions) => engine.tryAcquire(name, lockOptions));
  }

  async inspect(): Promise<SemaphoreState | null> {
    this.#runtime.assertOpen();
    return this.#runtime.inspect(this.name);
  }

  async #take(
    options: PermitAcquireOptions | undefined,
    call: (engine: LockProvider, name: string, lockOptions: PermitAcquireOptions & { owner: string }) => ReturnType<LockProvider["tryAcquire"]>,
  ): Promise<Permit | null> {
    const { count, lockOptions } = validatePermitOptions(options, this.permits);
    const ownerSecret = newOwnerSecret();
    const forget = this.#runtime.driver.ask(ownerSecret, this.permits, count);
    try {
      const lock = await call(this.#runtime.engine, this.name, { ...lockOptions, owner: ownerSecret });
      return lock === null ? null : new PermitHandle(lock, count);
    } finally {
      forget();
    }
  }
}

/** `inspect` of a semaphore driver, failing as the provider's other calls do. */
export function inspectSemaphore(backend: string, inspect: (name: string) => Promise<SemaphoreState | null>, name: string): Promise<SemaphoreState | null> {
  return callDriver(backend, "inspect", () => inspect(name));
}
