import type { SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal, DriverWait, SemaphoreDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import type { SessionPermits } from "./session-permits.js";

/** Runs a driver operation as the session lock driver runs its own: client loaded, failures as `BackendUnavailableError`. */
export type SessionOperationRunner = <T>(operation: string, statement: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

/** Session mode's `SemaphoreDriver`: the process's `SessionPermits`, each call run as the lock driver runs its own. */
export class SessionSemaphoreDriver implements SemaphoreDriver {
  readonly #permits: SessionPermits;
  readonly #run: SessionOperationRunner;

  constructor(permits: SessionPermits, run: SessionOperationRunner) {
    this.#permits = permits;
    this.#run = run;
  }

  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    return this.#run("acquire", () => this.#permits.tryAcquire(request));
  }

  acquire(request: DriverPermitRequest, wait: DriverWait): Promise<DriverGranted> {
    return this.#run("acquire", () => this.#permits.acquire(request, wait.signal), wait.signal);
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#run("renew", () => this.#permits.renew(renewals));
  }

  release(name: string, ownerSecret: string): Promise<boolean> {
    return this.#run("release", () => this.#permits.release(name, ownerSecret));
  }

  inspect(name: string): Promise<SemaphoreState | null> {
    return this.#run("inspect", () => this.#permits.inspect(name));
  }
}
