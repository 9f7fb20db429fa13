import { DriverLockProvider } from "@distlock/core/driver";
import { openSqlConnection } from "./connection/open-sql-connection.js";
import { resolveSqlLockOptions } from "./options/resolve-sql-lock-options.js";
import type { SqlLockProviderOptions } from "./options/sql-lock-provider-options.js";
import { openSessionTarget } from "./session/open-session-target.js";
import { SessionLockDriver } from "./session/session-lock-driver.js";
import { TableLockDriver } from "./table/table-lock-driver.js";

/**
 * Distributed locks in a SQL table (PostgreSQL, MySQL/MariaDB or SQLite through kysely), or with `mode: "session"`
 * the database's own session locks (PostgreSQL advisory locks, MySQL/MariaDB `GET_LOCK`).
 */
export class SqlLockProvider extends DriverLockProvider {
  readonly #driver: TableLockDriver | SessionLockDriver;

  /**
   * Like the constructor, and also waits for the client library a `url` needs (`pg`, `mysql2`, `better-sqlite3`),
   * so a missing one rejects here with `InvalidConfigError` instead of at the first operation. Contacts nothing.
   */
  static async open(options: SqlLockProviderOptions, optionsField = "options"): Promise<SqlLockProvider> {
    const provider = new SqlLockProvider(options, optionsField);
    try {
      await provider.#driver.ready();
    } catch (error) {
      await provider.close();
      throw error;
    }
    return provider;
  }

  /**
   * Validates `options` (throwing `InvalidConfigError` naming the field) without contacting the database. The client
   * library a `url` needs starts loading here; if it is not installed, every operation rejects with `InvalidConfigError`.
   */
  constructor(options: SqlLockProviderOptions, optionsField = "options") {
    const resolved = resolveSqlLockOptions(options, optionsField);
    const driver =
      resolved.mode === "session" ? new SessionLockDriver(openSessionTarget(resolved), resolved) : new TableLockDriver(openSqlConnection(resolved), resolved);
    super(driver, { holderLabel: resolved.holderLabel });
    this.#driver = driver;
  }

  /** Creates or upgrades the lock table now; needed once per database when `migrate` is off. */
  migrate(): Promise<void> {
    return this.#driver instanceof TableLockDriver ? this.#driver.migrate() : this.#driver.ready();
  }

  /** Deletes rows that have been free or expired for longer than `idleMs` (default `purgeIdleAfterMs`); resolves with how many. */
  purgeIdleLocks(idleMs?: number): Promise<number> {
    return this.#driver instanceof TableLockDriver ? this.#driver.purgeIdle(idleMs) : Promise.resolve(0);
  }
}
