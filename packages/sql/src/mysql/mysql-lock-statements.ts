import type { DriverAcquireRequest, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import { LockStatements, type ReleaseOutcome } from "../table/lock-statements.js";
import type { WaiterLine } from "../table/waiter-line.js";
import { MYSQL_FLAVOR } from "./mysql-flavor.js";

interface OwnedRow {
  mine: number | string;
  hold_count: number | string;
  fencing_token: string;
  ttl_ms: number | string;
}

/**
 * MySQL/MariaDB: `INSERT ... ON DUPLICATE KEY UPDATE` decides atomically. MySQL applies the SET list left to
 * right with already-updated values, so the owner is replaced after every column that tests it and before
 * `expires_at`, which then tests the new owner; a read-back on the same connection reports the outcome.
 * `LAST_INSERT_ID(expr)` puts a per-statement value in the OK packet (no session state is relied on),
 * which tells release and renew whether a row matched whatever the client's FOUND_ROWS flag.
 */
export class MysqlLockStatements extends LockStatements {
  constructor(table: string, queue: WaiterLine) {
    super(table, MYSQL_FLAVOR, queue);
  }

  async tryAcquire(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    // One reserved connection, so a provider closing in between cannot separate the read-back from the upsert.
    return db.connection().execute(async (connection) => {
      await this.#upsert(connection, request);
      return this.#readBack(connection, request, sql``);
    });
  }

  /**
   * Inside a set's transaction the read-back locks the row (which the upsert already did): a plain read there would see
   * the snapshot of the transaction's first read, not the row as the upsert left it.
   */
  protected override async attemptInSet(trx: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    await this.#upsert(trx, request);
    return this.#readBack(trx, request, this.flavor.forUpdate);
  }

  /** What the upsert of `request` came to, read from the key's row with `locking` as the tail of the select. */
  async #readBack(db: AnyKysely, request: DriverAcquireRequest, locking: RawBuilder<unknown>): Promise<DriverAcquireResult> {
    const { rows } = await sql<OwnedRow>`select owner_secret = ${request.ownerSecret} as mine, hold_count,
        ${this.flavor.asText(sql`fencing_token`)} as fencing_token, expires_at - ${this.now} as ttl_ms
      from ${this.table} where lock_key = ${request.key} and ${this.live} ${locking}`.execute(db);
    const row = rows[0];
    if (row === undefined) return { acquired: false, retryAfterMs: 1 };
    if (Number(row.mine) !== 1) return { acquired: false, retryAfterMs: Math.max(1, Number(row.ttl_ms)) };
    return { acquired: true, holdCount: Number(row.hold_count), fencingToken: BigInt(row.fencing_token), ttlMs: Number(row.ttl_ms) };
  }

  async renew(db: AnyKysely, { key, ownerSecret, ttlMs }: DriverRenewal): Promise<boolean> {
    const result =
      await sql`update ${this.table} set expires_at = greatest(expires_at, ${this.now} + ${this.integer(ttlMs)}), hold_count = last_insert_id(hold_count)
      where lock_key = ${key} and owner_secret = ${ownerSecret} and expires_at > ${this.now}`.execute(db);
    return Number(result.insertId ?? 0n) > 0;
  }

  async release(db: AnyKysely, key: string, ownerSecret: string): Promise<ReleaseOutcome> {
    const result = await sql`update ${this.table} set
        owner_secret = case when hold_count = 1 then null else owner_secret end,
        expires_at = case when hold_count = 1 then ${this.now} else expires_at end,
        hold_count = last_insert_id(hold_count) - 1
      where lock_key = ${key} and owner_secret = ${ownerSecret} and expires_at > ${this.now}`.execute(db);
    const before = Number(result.insertId ?? 0n);
    return before > 0 ? { held: true, holdCount: before - 1 } : { held: false, holdCount: 0 };
  }

  async forceRelease(db: AnyKysely, key: string): Promise<boolean> {
    const result = await sql`update ${this.table} set owner_secret = null, hold_count = 0, expires_at = ${this.now}
      where lock_key = ${key} and ${this.live}`.execute(db);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }

  async #upsert(db: AnyKysely, request: DriverAcquireRequest): Promise<void> {
    const t = this.table;
    const now = this.now;
    const expiresAt = sql`${now} + ${this.integer(request.ttlMs)}`;
    const mine = sql`(${t}.owner_secret = ${request.ownerSecret} and ${t}.expires_at > ${now})`;
    const free = this.freeFor(sql<boolean>`(${t}.owner_secret is null or ${t}.expires_at <= ${now})`, request.key, request.ownerSecret);
    await sql`insert into ${t} (lock_key, owner_secret, holder, hold_count, fencing_token, expires_at)
      select ${request.key}, ${request.ownerSecret}, ${request.holder}, 1, coalesce(max(f.fencing_token), 0) + 1, ${expiresAt}
      from ${t} f where f.lock_key = ''
      on duplicate key update
        hold_count = case when ${mine} then ${t}.hold_count + 1 when ${free} then 1 else ${t}.hold_count end,
        fencing_token = case when ${free} then ${t}.fencing_token + 1 else ${t}.fencing_token end,
        holder = case when ${free} then ${request.holder} else ${t}.holder end,
        owner_secret = case when ${free} then ${request.ownerSecret} else ${t}.owner_secret end,
        expires_at = case when ${t}.owner_secret = ${request.ownerSecret}
          then (case when ${t}.expires_at > ${now} then greatest(${t}.expires_at, ${expiresAt}) else ${expiresAt} end)
          else ${t}.expires_at end`.execute(db);
  }
}
