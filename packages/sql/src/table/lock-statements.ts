import type { LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRefused, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "./any-kysely.js";
import type { LockSqlFlavor } from "./lock-sql-flavor.js";
import type { WaiterLine } from "./waiter-line.js";
import { inDecidedWriteTransaction, inWriteTransaction } from "./write-transaction.js";

/** Outcome of one release. */
export interface ReleaseOutcome {
  readonly held: boolean;
  readonly holdCount: number;
}

interface StateRow {
  holder: string;
  hold_count: number | string;
  fencing_token: string;
  ttl_ms: number | string;
  waiters: number | string;
}

/**
 * The lock table's statements for one dialect. Rows are never deleted on release: a free row keeps its
 * fencing counter (owner NULL). The row with the empty key, which no caller can name, holds the "floor"
 * a fresh row's counter starts above, raised by `purgeIdle` before it deletes idle rows.
 */
export abstract class LockStatements {
  protected readonly table: RawBuilder<unknown>;
  protected readonly flavor: LockSqlFlavor;
  /** The server-side line of waiters; a free key goes to its first live waiter. */
  readonly queue: WaiterLine;

  constructor(table: string, flavor: LockSqlFlavor, queue: WaiterLine) {
    this.table = sql.table(table);
    this.flavor = flavor;
    this.queue = queue;
  }

  /** One atomic attempt to take or re-enter `request.key`. */
  abstract tryAcquire(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult>;
  /** A waiter's poll: keeps its place in line live, attempts, and leaves the line when granted. */
  async attemptInLine(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    await this.queue.keepPlace(db, request.key, request.ownerSecret);
    const result = await this.tryAcquire(db, request);
    // A place left behind by a failed delete lapses within the claim window; the grant must not be lost over it.
    if (result.acquired) await this.queue.leave(db, request.key, request.ownerSecret).catch(() => undefined);
    return result;
  }

  /**
   * Every key of `requests` (one owner's, in key order) taken or re-entered as `tryAcquire` would, in one write
   * transaction that locks their rows in that order and is rolled back at the first refusal: the grants, or that refusal.
   */
  tryAcquireAll(db: AnyKysely, requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    return inDecidedWriteTransaction<DriverGranted[] | DriverRefused>(db, this.flavor, async (trx) => {
      const grants: DriverGranted[] = [];
      for (const request of requests) {
        const result = await this.attemptInSet(trx, request);
        if (!result.acquired) return { keep: false, result };
        grants.push(result);
      }
      return { keep: true, result: grants };
    });
  }

  /** One level of each of `keys` (in key order) dropped for `ownerSecret` as `release` drops it, in one write transaction. */
  releaseAll(db: AnyKysely, keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
    return inWriteTransaction(db, this.flavor, async (trx) => {
      const outcomes: ReleaseOutcome[] = [];
      for (const key of keys) outcomes.push(await this.release(trx, key, ownerSecret));
      return outcomes;
    });
  }

  /** Extends one lease if its owner still holds it. */
  abstract renew(db: AnyKysely, renewal: DriverRenewal): Promise<boolean>;
  /** Drops one level of the owner's hold; frees the row at zero. */
  abstract release(db: AnyKysely, key: string, ownerSecret: string): Promise<ReleaseOutcome>;
  /** Frees a live hold whoever owns it. */
  abstract forceRelease(db: AnyKysely, key: string): Promise<boolean>;

  async inspect(db: AnyKysely, key: string): Promise<LockState | null> {
    const { rows } =
      await sql<StateRow>`select holder, hold_count, ${this.flavor.asText(sql`fencing_token`)} as fencing_token, expires_at - ${this.now} as ttl_ms,
      ${this.queue.liveCount(key)} as waiters
      from ${this.table} where lock_key = ${key} and ${this.live}`.execute(db);
    const row = rows[0];
    return row === undefined ? null : stateOf(key, row);
  }

  /** The live rows whose key starts with `prefix`, the first `limit` in byte order, each with its live waiters. */
  async list(db: AnyKysely, prefix: string, limit: number): Promise<LockState[]> {
    const key = sql`l.lock_key`;
    const { rows } = await sql<StateRow & { lock_key: string }>`select ${this.flavor.asText(key)} as lock_key, holder, hold_count,
      ${this.flavor.asText(sql`fencing_token`)} as fencing_token, expires_at - ${this.now} as ttl_ms, ${this.queue.liveCount(key)} as waiters
      from ${this.table} l where ${this.flavor.startsWith(key, prefix)} and ${this.live}
      order by ${this.flavor.byteOrder(key)} limit ${sql.lit(limit)}`.execute(db);
    return rows.map((row) => stateOf(row.lock_key, row));
  }

  /** Deletes rows idle (free or expired) for longer than `idleMs`, after raising the floor above their counters. */
  async purgeIdle(db: AnyKysely, idleMs: number): Promise<number> {
    const idle = sql`expires_at < ${this.now} - ${this.integer(idleMs)}`;
    const purged = await db.transaction().execute(async (trx) => {
      await this.flavor.lockFloor(this.table).execute(trx);
      const idleMax = sql`(select x.m from (select coalesce(max(fencing_token), 0) as m from ${this.table} where lock_key <> '' and ${idle}) x)`;
      await sql`update ${this.table} set fencing_token = ${this.flavor.greatest(sql`fencing_token`, idleMax)} where lock_key = ''`.execute(trx);
      const floor = sql`(select x.f from (select fencing_token as f from ${this.table} where lock_key = '') x)`;
      const deleted = await sql`delete from ${this.table} where lock_key <> '' and ${idle} and fencing_token <= ${floor}`.execute(trx);
      return Number(deleted.numAffectedRows ?? 0n);
    });
    await this.queue.purgeExpired(db);
    return purged;
  }

  /** `tryAcquire` of one key inside a set's transaction, on its connection. */
  protected attemptInSet(trx: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.tryAcquire(trx, request);
  }

  /** A refusal bounded by the current holder's remaining lease (1 ms if it was freed meanwhile). */
  protected async refusal(db: AnyKysely, key: string): Promise<DriverRefused> {
    const { rows } = await sql<{
      ttl_ms: number | string;
    }>`select expires_at - ${this.now} as ttl_ms from ${this.table} where lock_key = ${key} and ${this.live}`.execute(db);
    return { acquired: false, retryAfterMs: Math.max(1, Number(rows[0]?.ttl_ms ?? 1)) };
  }

  /** `free` (the row is free or expired) and nobody waits in line before `secret`. */
  protected freeFor(free: RawBuilder<boolean>, key: string, secret: string): RawBuilder<boolean> {
    return sql<boolean>`(${free} and ${this.queue.noneAhead(key, secret)})`;
  }

  /** The server clock in epoch ms. */
  protected get now(): RawBuilder<number> {
    return this.flavor.nowMs;
  }

  /** The row is held by someone and its lease has not run out. */
  protected get live(): RawBuilder<boolean> {
    return sql<boolean>`owner_secret is not null and expires_at > ${this.now}`;
  }

  /** A bound integer parameter, cast so every dialect types it as a number. */
  protected integer(value: number): RawBuilder<number> {
    return this.flavor.integer(value);
  }
}

/** The public view of `key` from its row. */
function stateOf(key: string, row: StateRow): LockState {
  return {
    key,
    holder: row.holder,
    holdCount: Number(row.hold_count),
    fencingToken: BigInt(row.fencing_token),
    ttlRemainingMs: Math.max(0, Number(row.ttl_ms)),
    waiters: Number(row.waiters),
  };
}
