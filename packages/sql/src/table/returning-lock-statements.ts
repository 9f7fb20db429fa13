import type { DriverAcquireRequest, DriverGranted, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";
import { LockStatements, type ReleaseOutcome } from "./lock-statements.js";
import type { WaiterLine } from "./waiter-line.js";

/** What the upsert returns when it took or re-entered the key. */
export interface GrantedRow {
  hold_count: number | string;
  fencing_token: string;
  ttl_ms: number | string;
}

/** What the freeing updates return. */
export interface HoldCountRow {
  hold_count: number | string;
}

/**
 * SQLite (and the base of PostgreSQL's statements): `INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING`,
 * so one statement both decides and reports; no row back means another owner holds the key.
 */
export class ReturningLockStatements extends LockStatements {
  constructor(table: string, flavor: LockSqlFlavor, queue: WaiterLine) {
    super(table, flavor, queue);
  }

  async tryAcquire(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const { rows } = await this.#upsert(request).execute(db);
    const row = rows[0];
    return row === undefined ? this.refusal(db, request.key) : granted(row);
  }

  async renew(db: AnyKysely, { key, ownerSecret, ttlMs }: DriverRenewal): Promise<boolean> {
    const { rows } = await sql`update ${this.table} set expires_at = ${this.flavor.greatest(sql`expires_at`, sql`${this.now} + ${this.integer(ttlMs)}`)}
      where lock_key = ${key} and owner_secret = ${ownerSecret} and expires_at > ${this.now} returning hold_count`.execute(db);
    return rows.length > 0;
  }

  async release(db: AnyKysely, key: string, ownerSecret: string): Promise<ReleaseOutcome> {
    const update = sql<HoldCountRow>`update ${this.table} set hold_count = hold_count - 1,
        owner_secret = case when hold_count = 1 then null else owner_secret end,
        expires_at = case when hold_count = 1 then ${this.now} else expires_at end
      where lock_key = ${key} and owner_secret = ${ownerSecret} and expires_at > ${this.now} returning hold_count`;
    const { rows } = await this.announcingFree(update, key).execute(db);
    const row = rows[0];
    return row === undefined ? { held: false, holdCount: 0 } : { held: true, holdCount: Number(row.hold_count) };
  }

  async forceRelease(db: AnyKysely, key: string): Promise<boolean> {
    const update = sql<HoldCountRow>`update ${this.table} set owner_secret = null, hold_count = 0, expires_at = ${this.now}
      where lock_key = ${key} and ${this.live} returning hold_count`;
    const { rows } = await this.announcingFree(update, key).execute(db);
    return rows.length > 0;
  }

  /** Takes a free or expired row (counter + 1) if no waiter is before the caller in line, re-enters an own one (same token, larger expiry), else returns nothing. */
  #upsert(request: DriverAcquireRequest): RawBuilder<GrantedRow> {
    const t = this.table;
    const mine = sql`(${t}.owner_secret = excluded.owner_secret and ${t}.expires_at > ${this.now})`;
    const free = this.freeFor(sql<boolean>`(${t}.owner_secret is null or ${t}.expires_at <= ${this.now})`, request.key, request.ownerSecret);
    return sql<GrantedRow>`insert into ${t} (lock_key, owner_secret, holder, hold_count, fencing_token, expires_at)
      select cast(${request.key} as text), cast(${request.ownerSecret} as text), cast(${request.holder} as text), 1,
        coalesce(max(f.fencing_token), 0) + 1, ${this.now} + ${this.integer(request.ttlMs)}
      from ${t} f where f.lock_key = ''
      on conflict (lock_key) do update set
        hold_count = case when ${mine} then ${t}.hold_count + 1 else 1 end,
        fencing_token = case when ${mine} then ${t}.fencing_token else ${t}.fencing_token + 1 end,
        holder = case when ${mine} then ${t}.holder else excluded.holder end,
        expires_at = case when ${mine} then ${this.flavor.greatest(sql`${t}.expires_at`, sql`excluded.expires_at`)} else excluded.expires_at end,
        owner_secret = excluded.owner_secret
      where ${free} or ${mine}
      returning hold_count, ${this.flavor.asText(sql`fencing_token`)} as fencing_token, expires_at - ${this.now} as ttl_ms`;
  }

  /** Lets a dialect tell waiters when an `UPDATE ... RETURNING hold_count` leaves the row free; as is by default. */
  protected announcingFree(update: RawBuilder<HoldCountRow>, _key: string): RawBuilder<HoldCountRow> {
    return update;
  }
}

/** The grant an upsert's row reports. */
export function granted(row: GrantedRow): DriverGranted {
  return { acquired: true, holdCount: Number(row.hold_count), fencingToken: BigInt(row.fencing_token), ttlMs: Number(row.ttl_ms) };
}
