import type { DriverPermitRequest } from "@distlock/core/driver";
import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import type { LockSqlFlavor } from "../table/lock-sql-flavor.js";
import { semaphoreTables } from "./semaphore-tables.js";
import { type SemaphoreRow, SemaphoreView } from "./semaphore-view.js";

/**
 * The semaphore tables' statements for one dialect. Apart from `create`, `read` and `lapsedNames`, each runs inside a
 * transaction that `lock` opened on the semaphore's row, and every write names one row by its whole primary key, so
 * InnoDB locks that row only (no gap locks that could deadlock with a neighbouring semaphore). Statement texts are
 * fixed (no lists), so named prepared statements stay few.
 */
export class SemaphoreStatements {
  readonly #flavor: LockSqlFlavor;
  readonly #semaphore: RawBuilder<unknown>;
  readonly #holder: RawBuilder<unknown>;
  readonly #waiter: RawBuilder<unknown>;
  readonly #claim: RawBuilder<number>;

  /** `claimMs`: how long a place in line stays live after its waiter's last attempt. */
  constructor(table: string, flavor: LockSqlFlavor, claimMs: number) {
    const tables = semaphoreTables(table);
    this.#flavor = flavor;
    this.#semaphore = sql.table(tables.semaphore);
    this.#holder = sql.table(tables.holder);
    this.#waiter = sql.table(tables.waiter);
    this.#claim = sql.lit(claimMs);
  }

  /** Locks the semaphore's row until the transaction ends; false when it has none yet. */
  async lock(trx: AnyKysely, name: string): Promise<boolean> {
    const { rows } = await sql`select 1 as found from ${this.#semaphore} where name = ${name} ${this.#flavor.forUpdate}`.execute(trx);
    return rows.length > 0;
  }

  /** Creates the semaphore's row (fencing counter 0) unless it exists; a statement of its own, outside any transaction. */
  async create(db: AnyKysely, name: string, permits: number): Promise<void> {
    const keep = sql`fencing_token = ${this.#semaphore}.fencing_token`;
    await sql`insert into ${this.#semaphore} (name, permits, fencing_token) values (${name}, ${this.#flavor.integer(permits)}, 0)
      ${this.#flavor.onConflict(sql`name`, keep)}`.execute(db);
  }

  /** The semaphore's row, grants and line with the database's clock, in one statement (after `lock`, it sees every change committed before). */
  async read(db: AnyKysely, name: string): Promise<SemaphoreView> {
    const text = (expr: RawBuilder<unknown>) => this.#flavor.asText(expr);
    const none = text(sql`null`);
    const { rows } = await sql<SemaphoreRow>`select 0 as kind, ${none} as secret, ${none} as holder, s.permits as permit_count,
        ${text(sql`s.fencing_token`)} as fencing_token, 0 as ticket, ${this.#flavor.nowMs} as expires_at
      from (select 1 as one) c left join ${this.#semaphore} s on s.name = ${name}
      union all
      select 1, ${text(sql`h.owner_secret`)}, h.holder, h.permit_count, ${text(sql`h.fencing_token`)}, 0, h.expires_at
      from ${this.#holder} h where h.name = ${name}
      union all
      select 2, ${text(sql`w.waiter_secret`)}, ${none}, w.permit_count, ${none}, w.ticket, w.expires_at
      from ${this.#waiter} w where w.name = ${name}`.execute(db);
    return new SemaphoreView(rows);
  }

  /** Deletes the rows `view` found lapsed, one by one. */
  async deleteLapsed(trx: AnyKysely, name: string, view: SemaphoreView): Promise<void> {
    for (const row of view.lapsed) await ("holder" in row ? this.deleteGrant(trx, name, row.secret) : this.deletePlace(trx, name, row.secret));
  }

  /** Counts one more grant (the new fencing token is the view's `lastToken` + 1) and stores the permit count. */
  async countGrant(trx: AnyKysely, name: string, permits: number): Promise<void> {
    await sql`update ${this.#semaphore} set fencing_token = fencing_token + 1, permits = ${this.#flavor.integer(permits)} where name = ${name}`.execute(trx);
  }

  /** Stores the permit count a semaphore that nobody holds or waits for is now in use with. */
  async storePermits(trx: AnyKysely, name: string, permits: number): Promise<void> {
    await sql`update ${this.#semaphore} set permits = ${this.#flavor.integer(permits)} where name = ${name}`.execute(trx);
  }

  /** Inserts the grant `countGrant` just counted, its lease running from now on the database's clock. */
  async insertGrant(trx: AnyKysely, request: DriverPermitRequest): Promise<void> {
    const { key: name, ownerSecret, holder, count, ttlMs } = request;
    const token = sql`(select s.fencing_token from ${this.#semaphore} s where s.name = ${name})`;
    await sql`insert into ${this.#holder} (name, owner_secret, holder, permit_count, fencing_token, expires_at)
      values (${name}, ${ownerSecret}, ${holder}, ${this.#flavor.integer(count)}, ${token}, ${this.#flavor.nowMs} + ${this.#flavor.integer(ttlMs)})`.execute(
      trx,
    );
  }

  /** Extends a grant's lease to now + `ttlMs`, never shortening it. */
  async extendGrant(trx: AnyKysely, name: string, secret: string, ttlMs: number): Promise<void> {
    const until = this.#flavor.greatest(sql`expires_at`, sql`${this.#flavor.nowMs} + ${this.#flavor.integer(ttlMs)}`);
    await sql`update ${this.#holder} set expires_at = ${until} where name = ${name} and owner_secret = ${secret}`.execute(trx);
  }

  async deleteGrant(trx: AnyKysely, name: string, secret: string): Promise<void> {
    await sql`delete from ${this.#holder} where name = ${name} and owner_secret = ${secret}`.execute(trx);
  }

  /** Takes a place at the end of the line (`ticket`), live for one claim window. */
  async insertPlace(trx: AnyKysely, request: DriverPermitRequest, ticket: number): Promise<void> {
    const { key: name, ownerSecret, count } = request;
    await sql`insert into ${this.#waiter} (name, waiter_secret, ticket, permit_count, expires_at)
      values (${name}, ${ownerSecret}, ${this.#flavor.integer(ticket)}, ${this.#flavor.integer(count)}, ${this.#flavor.nowMs} + ${this.#claim})`.execute(trx);
  }

  /** Keeps a place live for another claim window. */
  async keepPlace(trx: AnyKysely, name: string, secret: string): Promise<void> {
    await sql`update ${this.#waiter} set expires_at = ${this.#flavor.nowMs} + ${this.#claim} where name = ${name} and waiter_secret = ${secret}`.execute(trx);
  }

  async deletePlace(trx: AnyKysely, name: string, secret: string): Promise<void> {
    await sql`delete from ${this.#waiter} where name = ${name} and waiter_secret = ${secret}`.execute(trx);
  }

  /** The semaphores with a grant or place that lapsed more than `idleMs` ago (left by processes that crashed or were cut off). */
  async lapsedNames(db: AnyKysely, idleMs: number): Promise<string[]> {
    const before = sql`${this.#flavor.nowMs} - ${this.#flavor.integer(idleMs)}`;
    const { rows } = await sql<{ name: string }>`select ${this.#flavor.asText(sql`h.name`)} as name from ${this.#holder} h where h.expires_at < ${before}
      union select ${this.#flavor.asText(sql`w.name`)} from ${this.#waiter} w where w.expires_at < ${before}`.execute(db);
    return rows.map((row) => row.name);
  }
}
