import { BackendUnavailableError, type LockCapabilities, LockError, type LockState, ProviderClosedError } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal, DriverWait, LockDriver } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { redactCredentials } from "@distlock/core/internal";
import type { SqlConnection } from "../connection/sql-connection.js";
import { runLockTableMigrations } from "../migrations/migrate-lock-table.js";
import type { SqlDialectName } from "../options/sql-dialect-name.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import { announceTurn } from "../postgres/announce-turn.js";
import { releaseChannel, waiterTag } from "../postgres/postgres-lock-functions.js";
import { PostgresReleaseListener } from "../postgres/postgres-release-listener.js";
import { SemaphoreStatements } from "../semaphore/semaphore-statements.js";
import { SqlSemaphoreDriver } from "../semaphore/sql-semaphore-driver.js";
import { InFlight } from "../waiting/in-flight.js";
import { type LineOperations, WAITER_CLAIM_MS, waitInLine } from "../waiting/wait-in-line.js";
import { dialectFlavor, dialectStatements } from "./dialect-statements.js";
import { acquireKeySet, releaseKeySet } from "./key-sets.js";
import { retryingLockConflicts } from "./lock-conflict.js";
import type { LockStatements } from "./lock-statements.js";

/** Shortest lease accepted: a few statement round trips plus a renewal must fit well inside it. */
const MIN_TTL_MS = 100;

/**
 * The SQL backend's driver: one statement per operation on the lock table, expiry on the database's clock; counting
 * semaphores on the tables next to it, one transaction per change.
 */
export class TableLockDriver implements LockDriver {
  readonly backend: SqlDialectName;
  /** Waiters keep a place in a server-side line, so every dialect grants in the order waiters joined it. */
  readonly capabilities: LockCapabilities = Object.freeze({
    fencing: true,
    fifo: true,
    serverClock: true,
    minTtlMs: MIN_TTL_MS,
    ttlGranularityMs: 1,
    listing: true,
    semaphore: true,
  });
  readonly acquire: (request: DriverAcquireRequest, wait: DriverWait) => Promise<DriverGranted>;
  readonly semaphores: SqlSemaphoreDriver;
  readonly #connection: SqlConnection;
  /** Settles once the client library the connection needs is loaded (see `ready`). */
  readonly #clientLoaded: Promise<void>;
  readonly #options: ResolvedSqlLockOptions;
  readonly #statements: LockStatements;
  readonly #listener: PostgresReleaseListener | undefined;
  readonly #purgeTimer: NodeJS.Timeout | undefined;
  /** Lock and permit waits in progress. */
  readonly #waits: InFlight;
  #migrated: Promise<void> | undefined;
  /** The client library is loaded and, when `migrate` is on, the table migrated: statements need not wait for either. */
  #prepared = false;
  #closed: Promise<void> | undefined;
  /** Settles once the waits in progress at `close()` have ended. */
  #waitsLeft: Promise<void> | undefined;

  constructor(connection: SqlConnection, options: ResolvedSqlLockOptions) {
    this.backend = options.source.dialect;
    this.#connection = connection;
    // Asked once: every statement waits on this settled promise instead of asking the connection again.
    this.#clientLoaded = connection.ready();
    this.#clientLoaded.catch(() => undefined);
    this.#options = options;
    this.#waits = new InFlight(options.queryTimeoutMs);
    this.#statements = dialectStatements(this.backend, options.table);
    if (connection.openListenClient !== undefined) {
      this.#listener = new PostgresReleaseListener(connection.openListenClient, releaseChannel(options.table));
    }
    const { queue } = this.#statements;
    const db = () => this.#connection.db;
    const listener = this.#listener;
    const line: LineOperations = {
      watch: listener === undefined ? undefined : ({ key, ownerSecret }) => listener.watch(key, waiterTag(ownerSecret)),
      attempt: (request) => this.#run("acquire", () => this.#statements.attemptInLine(db(), request)),
      ahead: ({ key, ownerSecret }) => this.#run("acquire", () => queue.ahead(db(), key, ownerSecret)),
      leave: ({ key, ownerSecret }) => this.#run("acquire", () => queue.leave(db(), key, ownerSecret)),
      release: ({ key, ownerSecret }) => this.release(key, ownerSecret),
      cleanupTurn: (signal) => this.#waits.cleanupTurn(signal),
    };
    this.acquire = (request, wait) => this.#waits.track(waitInLine(line, request, wait.signal));
    const flavor = dialectFlavor(this.backend);
    this.semaphores = new SqlSemaphoreDriver(new SemaphoreStatements(options.table, flavor, WAITER_CLAIM_MS), {
      db: connection.db,
      flavor,
      run: (operation, statements) => this.#run(operation, statements),
      listener,
      waits: this.#waits,
      announce: this.backend === "postgres" ? (trx, name, secret) => announceTurn(trx, options.table, name, secret) : undefined,
    });
    if (options.purgeIntervalMs > 0) {
      this.#purgeTimer = setInterval(() => void this.purgeIdle().catch(() => undefined), options.purgeIntervalMs);
      this.#purgeTimer.unref();
    }
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#run("acquire", () => this.#statements.tryAcquire(this.#connection.db, request));
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return this.#run("renew", () => Promise.all(renewals.map((renewal) => this.#statements.renew(this.#connection.db, renewal))));
  }

  release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    return this.#run("release", () => this.#statements.release(this.#connection.db, key, ownerSecret));
  }

  /** Every key of a set or none, in one transaction (PostgreSQL: one function call) that locks the rows in key order. */
  tryAcquireAll(requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return this.#run("acquire", () => acquireKeySet(this.#statements, this.#connection.db, requests));
  }

  /** One level of each key dropped, in one transaction (PostgreSQL: one function call). */
  releaseAll(keys: readonly string[], ownerSecret: string): Promise<Array<{ held: boolean; holdCount: number }>> {
    return this.#run("release", () => releaseKeySet(this.#statements, this.#connection.db, keys, ownerSecret));
  }

  inspect(key: string): Promise<LockState | null> {
    return this.#run("inspect", () => this.#statements.inspect(this.#connection.db, key));
  }

  /** One SELECT of the live rows whose key starts with `prefix` (matched literally), in key order, with their waiters. */
  list(prefix: string, limit: number): Promise<LockState[]> {
    return this.#run("list", () => this.#statements.list(this.#connection.db, prefix, limit));
  }

  forceRelease(key: string): Promise<boolean> {
    return this.#run("forceRelease", () => this.#statements.forceRelease(this.#connection.db, key));
  }

  /**
   * Deletes lock rows free or expired for longer than `idleMs` (never a live hold, never lowering a fencing counter),
   * and semaphore grants and places lapsed that long; resolves with the number of lock rows.
   */
  async purgeIdle(idleMs = this.#options.purgeIdleAfterMs): Promise<number> {
    const purged = await this.#run("purge", () => this.#statements.purgeIdle(this.#connection.db, idleMs));
    await this.semaphores.purgeLapsed(idleMs);
    return purged;
  }

  /** Resolves once the client library a `url` needs is loaded, contacting nothing; rejects with `InvalidConfigError` if it is not installed. */
  ready(): Promise<void> {
    return this.#clientLoaded;
  }

  /** Creates or upgrades the lock table now (otherwise done on first use when `migrate` is on). */
  migrate(): Promise<void> {
    return this.#run("migrate", async () => undefined, true);
  }

  /**
   * Stops the purge timer, lets the waits the provider aborted leave their lines (bounded by `queryTimeoutMs`), so
   * that close resolves after they rejected and nothing of theirs is left queued, then starts closing the connections
   * the driver created. It resolves without waiting for the sockets: ending a pg/mysql2 pool waits for the server's
   * goodbye, which never comes from a stalled server, and close() must not hang.
   */
  close(): Promise<void> {
    clearInterval(this.#purgeTimer);
    if (this.#waitsLeft === undefined) {
      this.#waitsLeft = this.#waits.close();
      this.#closed = this.#waitsLeft
        .then(async () => {
          await this.#listener?.close();
          await this.#connection.close();
        })
        .catch(() => undefined);
    }
    return this.#waitsLeft;
  }

  /**
   * `statement`, once the client library is loaded and the table migrated (when asked), sent again when the database
   * rolled it back to break a lock conflict (`retryingLockConflicts`); its failure as a lock error.
   */
  #run<T>(operation: string, statement: () => Promise<T>, forceMigration = false): Promise<T> {
    const fail = (error: unknown): never => {
      throw this.#failure(operation, error);
    };
    const send = () => retryingLockConflicts(statement);
    // Once both are done, a statement goes out without waiting a turn for either.
    if (!this.#prepared || forceMigration) return this.#prepare(forceMigration).then(send).catch(fail);
    try {
      return send().catch(fail);
    } catch (error) {
      return Promise.reject(this.#failure(operation, error));
    }
  }

  async #prepare(forceMigration: boolean): Promise<void> {
    await this.#clientLoaded;
    if (this.#options.migrate || forceMigration) await this.#ensureMigrated();
    this.#prepared = true;
  }

  #failure(operation: string, error: unknown): unknown {
    if (LockError.is(error)) return error;
    if (this.#closed !== undefined) return new ProviderClosedError(this.backend);
    return new BackendUnavailableError(this.backend, `${operation} failed on ${this.#target()}: ${describe(error)}`, { cause: error });
  }

  #ensureMigrated(): Promise<void> {
    this.#migrated ??= runLockTableMigrations(this.#connection.db, this.backend, this.#options.table).catch((error: unknown) => {
      this.#migrated = undefined;
      throw error;
    });
    return this.#migrated;
  }

  #target(): string {
    const { source } = this.#options;
    return source.kind === "url" ? source.url.redacted : `the ${source.dialect} ${source.kind} given`;
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  return redactCredentials(text);
}
