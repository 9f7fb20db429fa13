import { BackendUnavailableError, type LockCapabilities, LockError, type LockState, ProviderClosedError } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { holderLabel, redactCredentials } from "@distlock/core/internal";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import { SessionSemaphoreDriver } from "./semaphore/session-semaphore-driver.js";
import type { SessionDialect } from "./session-connection.js";
import { SessionLockSpace } from "./session-lock-space.js";
import { useSessionLockSpace } from "./session-space-registry.js";

/** Where a session-mode provider's connections go, for errors and for sharing one lock space per database. */
export interface SessionTarget {
  readonly dialect: SessionDialect;
  /** Database, user and table: providers of one process with the same identity share their sessions and holds. */
  readonly identity: string;
  /** Hashed with each key into the server's lock name: keys of different lock spaces never share a server lock. */
  readonly lockNamespace: string;
  /** The URL without its password. */
  readonly redacted: string;
  /** Resolves once the client library is loaded; rejects with `InvalidConfigError` if it is missing. */
  readonly loaded: Promise<void>;
}

/** Session mode: the database's own locks, held by sessions of this process's lock space. */
export class SessionLockDriver implements LockDriver {
  readonly backend: "postgres" | "mysql";
  readonly capabilities: LockCapabilities;
  readonly acquire: (request: DriverAcquireRequest, wait: DriverWait) => Promise<DriverGranted>;
  readonly semaphores: SessionSemaphoreDriver;
  readonly #target: SessionTarget;
  readonly #space: SessionLockSpace;
  readonly #leave: () => void;
  #closed = false;
  /** The client library has loaded (`target.loaded` resolved). */
  #loaded = false;

  constructor(target: SessionTarget, options: ResolvedSqlLockOptions) {
    this.#target = target;
    const { dialect } = target;
    this.backend = dialect.backend;
    // The server queues waiters in arrival order (PostgreSQL's lock queue; MariaDB's metadata locks, tested); leases are kept by this process (and bounded by the session's idle limit).
    this.capabilities = Object.freeze({
      fencing: true,
      fifo: true,
      serverClock: false,
      minTtlMs: Math.max(100, dialect.idleGranularityMs),
      ttlGranularityMs: dialect.idleGranularityMs,
      // The server names session locks by a hash of the key (advisory lock ids, GET_LOCK names), never by the key.
      listing: false,
      // Grants are rows that live as long as their session (see SessionPermits and the README).
      semaphore: true,
    });
    const used = useSessionLockSpace(target.identity, () => new SessionLockSpace(dialect, target.lockNamespace, holderLabel(options.holderLabel)));
    this.#space = used.space;
    this.#leave = used.leave;
    this.acquire = (request, wait) => this.#run("acquire", () => this.#space.acquire(request, wait.signal), wait.signal);
    this.semaphores = new SessionSemaphoreDriver(this.#space.permits, (operation, statement, signal) => this.#run(operation, statement, signal));
  }

  ready(): Promise<void> {
    return this.#target.loaded;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#run("acquire", () => this.#space.tryAcquire(request));
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#run("renew", () => this.#space.renew(renewals));
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#run("release", () => this.#space.release(key, ownerSecret));
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#run("inspect", () => this.#space.inspect(key));
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#run("forceRelease", () => this.#space.forceRelease(key));
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#leave();
    return Promise.resolve();
  }

  async #run<T>(operation: string, statement: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      // Awaited until it has resolved once: an await of a settled promise still costs every call a turn of the queue.
      if (!this.#loaded) {
        await this.#target.loaded;
        this.#loaded = true;
      }
      return await statement();
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      if (LockError.is(error)) throw error;
      if (this.#closed) throw new ProviderClosedError(this.backend);
      const message = error instanceof Error ? error.message || error.name : String(error);
      throw new BackendUnavailableError(this.backend, `${operation} failed on ${this.#target.redacted}: ${redactCredentials(message)}`, { cause: error });
    }
  }
}
