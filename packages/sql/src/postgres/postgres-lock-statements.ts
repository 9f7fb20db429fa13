import type { DriverAcquireRequest, DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { type RawBuilder, sql } from "kysely";
import type { AnyKysely } from "../table/any-kysely.js";
import { CompiledStatement } from "../table/compiled-statement.js";
import type { ReleaseOutcome } from "../table/lock-statements.js";
import { type GrantedRow, granted, type HoldCountRow, ReturningLockStatements } from "../table/returning-lock-statements.js";
import type { WaiterLine } from "../table/waiter-line.js";
import { POSTGRES_FLAVOR } from "./postgres-flavor.js";
import { acquireAllFunctionName, releaseAllFunctionName } from "./postgres-key-set-functions.js";
import { acquireFunctionName, releaseChannel, releaseFunctionName } from "./postgres-lock-functions.js";

/**
 * PostgreSQL: acquire (including a refusal's lease read) and release call the table's PL/pgSQL functions (see `createPostgresLockFunctions`), which
 * run the shared upsert and the owner-checked update with plans the server keeps per connection; release sends
 * a notification only to the first live waiter in line. forceRelease announces the freed key to every waiter.
 * A set of keys is one call either way (see `createPostgresKeySetFunctions`), atomic as one statement.
 */
export class PostgresLockStatements extends ReturningLockStatements {
  readonly #acquire: CompiledStatement<GrantedRow, [key: string, ownerSecret: string, holder: string, ttlMs: number, claimMs: number]>;
  readonly #release: CompiledStatement<HoldCountRow, [key: string, ownerSecret: string]>;
  readonly #acquireAll: RawBuilder<unknown>;
  readonly #releaseAll: RawBuilder<unknown>;
  readonly #channel: string;

  constructor(table: string, queue: WaiterLine) {
    super(table, POSTGRES_FLAVOR, queue);
    const acquire = sql.table(acquireFunctionName(table));
    const release = sql.table(releaseFunctionName(table));
    this.#acquire = new CompiledStatement(
      (key, ownerSecret, holder, ttlMs, claimMs) =>
        sql<GrantedRow>`select * from ${acquire}(${key}, ${ownerSecret}, ${holder}, ${this.integer(ttlMs)}, ${this.integer(claimMs)})`,
    );
    this.#release = new CompiledStatement((key, ownerSecret) => sql<HoldCountRow>`select * from ${release}(${key}, ${ownerSecret})`);
    this.#acquireAll = sql.table(acquireAllFunctionName(table));
    this.#releaseAll = sql.table(releaseAllFunctionName(table));
    this.#channel = releaseChannel(table);
  }

  override tryAcquire(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#call(db, request, 0);
  }

  /** One call: keeps the place, attempts, and leaves the line on a grant. */
  override attemptInLine(db: AnyKysely, request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    return this.#call(db, request, this.queue.claimMs);
  }

  async #call(db: AnyKysely, request: DriverAcquireRequest, claimMs: number): Promise<DriverAcquireResult> {
    const { key, ownerSecret, holder, ttlMs } = request;
    const { rows } = await this.#acquire.execute(db, key, ownerSecret, holder, ttlMs, claimMs);
    // The function answers with one row: a grant (hold_count > 0), or a refusal with the holder's lease, if any.
    const row = rows[0];
    if (row !== undefined && Number(row.hold_count) > 0) return granted(row);
    return { acquired: false, retryAfterMs: Math.max(1, Number(row?.ttl_ms ?? 1)) };
  }

  override async tryAcquireAll(db: AnyKysely, requests: readonly DriverAcquireRequest[]): Promise<DriverGranted[] | DriverRefused> {
    const [first] = requests;
    if (first === undefined) return [];
    const { ownerSecret, holder, ttlMs } = first;
    const keys = requests.map(({ key }) => key);
    const { rows } = await sql<GrantedRow>`select * from ${this.#acquireAll}(${keys}, ${ownerSecret}, ${holder}, ${this.integer(ttlMs)})`.execute(db);
    // One row per key granted, or a single refusal row (hold_count 0) with the refusing holder's lease, if any.
    if (rows.length === requests.length && rows.every((row) => Number(row.hold_count) > 0)) return rows.map(granted);
    return { acquired: false, retryAfterMs: Math.max(1, Number(rows[0]?.ttl_ms ?? 1)) };
  }

  override async releaseAll(db: AnyKysely, keys: readonly string[], ownerSecret: string): Promise<ReleaseOutcome[]> {
    const { rows } = await sql<HoldCountRow>`select * from ${this.#releaseAll}(${keys}, ${ownerSecret})`.execute(db);
    return rows.map((row) => {
      const left = Number(row.hold_count);
      return left < 0 ? { held: false, holdCount: 0 } : { held: true, holdCount: left };
    });
  }

  override async release(db: AnyKysely, key: string, ownerSecret: string): Promise<ReleaseOutcome> {
    const { rows } = await this.#release.execute(db, key, ownerSecret);
    const row = rows[0];
    return row === undefined ? { held: false, holdCount: 0 } : { held: true, holdCount: Number(row.hold_count) };
  }

  protected override announcingFree(update: RawBuilder<HoldCountRow>, key: string): RawBuilder<HoldCountRow> {
    return sql<HoldCountRow>`with freed as (${update})
      select hold_count, case when hold_count = 0 then pg_notify(${this.#channel}, ':' || cast(${key} as text)) end as notified from freed`;
  }
}
