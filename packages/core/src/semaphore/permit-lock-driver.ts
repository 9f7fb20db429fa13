import type { DriverAcquireRequest, DriverGranted, DriverRenewal, DriverWait } from "../driver/driver-attempt.js";
import type { LockDriver } from "../driver/lock-driver.js";
import type { DriverPermitRequest, SemaphoreDriver } from "../driver/semaphore-driver.js";
import { UnsupportedOperationError } from "../errors/unsupported-operation-error.js";
import { FREED, NOT_HELD } from "../provider/release-outcome.js";
import type { LockCapabilities, LockState } from "../types.js";

/** What an acquire in progress asks for, found by its owner secret. */
interface PermitAsk {
  readonly permits: number;
  readonly count: number;
}

/**
 * A backend's `SemaphoreDriver` seen as a `LockDriver` whose keys are semaphore names, so that permits run on the
 * lock's own provider machinery (waiting, watchdog, lost signals, close). Each permit acquire has a fresh owner secret
 * (a permit never re-enters); `ask` says, for the time its acquire runs, how many permits that secret asks for.
 */
export class PermitLockDriver implements LockDriver {
  readonly backend: string;
  readonly capabilities: LockCapabilities;
  readonly acquire?: (request: DriverAcquireRequest, wait: DriverWait) => Promise<DriverGranted>;
  readonly isWatching?: (name: string) => boolean;
  /** Each permit acquire has an owner secret of its own: none re-enters. */
  readonly freshOwners = true;
  readonly #semaphores: SemaphoreDriver;
  readonly #asks = new Map<string, PermitAsk>();

  constructor(backend: string, capabilities: LockCapabilities, semaphores: SemaphoreDriver) {
    this.backend = backend;
    this.capabilities = capabilities;
    this.#semaphores = semaphores;
    const native = semaphores.acquire?.bind(semaphores);
    if (native !== undefined) this.acquire = async (request, wait) => native(this.#permitRequest(request), wait);
    const watching = semaphores.isWatching?.bind(semaphores);
    if (native !== undefined && watching !== undefined) this.isWatching = watching;
  }

  /** Records what `ownerSecret` asks for while its acquire runs; returns the call that forgets it. */
  ask(ownerSecret: string, permits: number, count: number): () => void {
    this.#asks.set(ownerSecret, { permits, count });
    return () => this.#asks.delete(ownerSecret);
  }

  async tryAcquire(request: DriverAcquireRequest) {
    return this.#semaphores.tryAcquire(this.#permitRequest(request));
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#semaphores.renew(renewals);
  }

  async release(name: string, ownerSecret: string) {
    return (await this.#semaphores.release(name, ownerSecret)) ? FREED : NOT_HELD;
  }

  /** Semaphores are inspected through `SemaphoreDriver.inspect`; the lock-shaped view does not exist. */
  inspect(): Promise<LockState | null> {
    return Promise.reject(new UnsupportedOperationError(this.backend, "inspect", "a semaphore is inspected through semaphore().inspect()"));
  }

  forceRelease(): Promise<boolean> {
    return Promise.reject(new UnsupportedOperationError(this.backend, "forceRelease", "semaphores have no force-release"));
  }

  /** The backend's own driver owns the connections and closes them. */
  async close(): Promise<void> {}

  #permitRequest(request: DriverAcquireRequest): DriverPermitRequest {
    const ask = this.#asks.get(request.ownerSecret);
    if (ask === undefined) throw new Error(`permit attempt on "${request.key}" outside its acquire`);
    return { key: request.key, ownerSecret: request.ownerSecret, holder: request.holder, ttlMs: request.ttlMs, permits: ask.permits, count: ask.count };
  }
}
