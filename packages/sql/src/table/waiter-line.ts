import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";

/** The waiter table that goes with lock table `table`. */
export function waiterTableName(table: string): string {
  return `${table}_waiter`;
}

/**
 * The server-side line of waiters for the polling dialects: one row per waiting owner and key, ordered by
 * `ticket`, one more than the highest ticket in the key's line when the place was taken. A place taken after
 * another was visible is always behind it, however close together (a clock in ms would tie them, and a clock
 * can step back); only places taken in the same instant can tie, and those go by secret. A place is live until `expires_at`, which every poll of its
 * waiter pushes out by the claim window, so a waiter that crashed, hung or gave up stops counting after at most
 * that window. A free or expired key goes to the first live waiter; a caller without a live place yields to all.
 */
export class WaiterLine {
  readonly #table: RawBuilder<unknown>;
  readonly #flavor: LockSqlFlavor;
  readonly #claim: RawBuilder<number>;
  /** How long a place stays live after its waiter's last poll. */
  readonly claimMs: number;

  constructor(table: string, flavor: LockSqlFlavor, claimMs: number) {
    this.#table = sql.table(waiterTableName(table));
    this.#flavor = flavor;
    this.#claim = sql.lit(claimMs);
    this.claimMs = claimMs;
  }

  /** Joins the line for `key`, or keeps the place `secret` already has (its ticket is never renumbered). */
  async keepPlace(db: AnyKysely, key: string, secret: string): Promise<void> {
    const now = this.#flavor.nowMs;
    const refresh = sql`expires_at = ${now} + ${this.#claim}`;
    const ticket = this.#flavor.lockingInsertReads ? await this.#readNextTicket(db, key) : this.#nextTicket(key);
    await sql`insert into ${this.#table} (lock_key, waiter_secret, ticket, expires_at) values (${key}, ${secret}, ${ticket}, ${now} + ${this.#claim})
      ${this.#flavor.onConflict(sql`lock_key, waiter_secret`, refresh)}`.execute(db);
  }

  /** Leaves the line (granted, aborted or failed). */
  async leave(db: AnyKysely, key: string, secret: string): Promise<void> {
    await sql`delete from ${this.#table} where lock_key = ${key} and waiter_secret = ${secret}`.execute(db);
  }

  /** How many live waiters are ahead of `secret` in the line for `key`. */
  async ahead(db: AnyKysely, key: string, secret: string): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${this.#table} o where ${this.#isAhead(key, secret)}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }

  /** The number of live places in the line for `key` (a value, or a column of the outer query), as a scalar subquery. */
  liveCount(key: string | RawBuilder<unknown>): RawBuilder<number> {
    return sql<number>`(select count(*) from ${this.#table} w where w.lock_key = ${key} and w.expires_at > ${this.#flavor.nowMs})`;
  }

  /** True when no live waiter is ahead of `secret`; for an acquire statement's takeover condition. */
  noneAhead(key: string, secret: string): RawBuilder<boolean> {
    return sql<boolean>`not exists (select 1 from ${this.#table} o where ${this.#isAhead(key, secret)})`;
  }

  /** Deletes places that are no longer live (their waiters crashed or were cut off before they could leave). */
  async purgeExpired(db: AnyKysely): Promise<number> {
    const deleted = await sql`delete from ${this.#table} where expires_at < ${this.#flavor.nowMs}`.execute(db);
    return Number(deleted.numAffectedRows ?? 0n);
  }

  /** The ticket a place taken now gets, as a scalar subquery. */
  #nextTicket(key: string): RawBuilder<number> {
    return sql<number>`(select coalesce(max(n.ticket), 0) + 1 from ${this.#table} n where n.lock_key = ${key})`;
  }

  /** `#nextTicket` as a plain (non-locking) read of its own, for dialects whose inserts lock what they read. */
  async #readNextTicket(db: AnyKysely, key: string): Promise<RawBuilder<string>> {
    const { rows } = await sql<{ next: number | string }>`select ${this.#nextTicket(key)} as next`.execute(db);
    return sql.val(String(rows[0]?.next ?? 1));
  }

  /** Row `o` is another live waiter for `key` and `secret` has no live place before it. */
  #isAhead(key: string, secret: string): RawBuilder<boolean> {
    const now = this.#flavor.nowMs;
    return sql<boolean>`o.lock_key = ${key} and o.waiter_secret <> ${secret} and o.expires_at > ${now}
      and not exists (select 1 from ${this.#table} m where m.lock_key = ${key} and m.waiter_secret = ${secret} and m.expires_at > ${now}
        and (m.ticket < o.ticket or (m.ticket = o.ticket and m.waiter_secret < o.waiter_secret)))`;
  }
}
