import type { SemaphoreState } from "@distlock/core";

/** One row of `SemaphoreStatements.read`: kind 0 is the semaphore's own row (with the clock), 1 a grant, 2 a waiter. */
export interface SemaphoreRow {
  kind: number | string;
  secret: string | null;
  holder: string | null;
  permit_count: number | string | null;
  fencing_token: string | null;
  ticket: number | string | null;
  expires_at: number | string | null;
}

/** One grant of permits. */
export interface PermitGrant {
  readonly secret: string;
  readonly holder: string;
  readonly count: number;
  readonly fencingToken: bigint;
  /** Epoch ms on the database's clock. */
  readonly expiresAt: number;
}

/** One place in the line. */
export interface LinePlace {
  readonly secret: string;
  readonly count: number;
  readonly ticket: number;
  /** Epoch ms on the database's clock; the place counts until then. */
  readonly expiresAt: number;
}

/**
 * One semaphore as read at one instant of the database's clock: its live grants (soonest-expiring first), its live
 * places in line (in line order) and the rows that have lapsed. Every decision of the SQL semaphores is taken here,
 * from a view read under the semaphore's row lock, so it is written once for all dialects. Immutable.
 */
export class SemaphoreView {
  /** The database's clock when the rows were read, epoch ms. */
  readonly now: number;
  /** The permit count stored with the semaphore; undefined when it has no row yet. */
  readonly storedPermits: number | undefined;
  /** The semaphore's fencing counter: the token of its latest grant (0 before the first). */
  readonly lastToken: bigint;
  readonly holders: readonly PermitGrant[];
  readonly waiters: readonly LinePlace[];
  /** Grant and line rows whose time has run out: nobody holds or waits through them, and the next change deletes them. */
  readonly lapsed: readonly (PermitGrant | LinePlace)[];
  /** The highest ticket in the line, lapsed places included. */
  readonly #lastTicket: number;

  constructor(rows: readonly SemaphoreRow[]) {
    const own = rows.find((row) => Number(row.kind) === 0);
    const now = Number(own?.expires_at ?? 0);
    const holders: PermitGrant[] = [];
    const waiters: LinePlace[] = [];
    const lapsed: (PermitGrant | LinePlace)[] = [];
    let lastTicket = 0;
    for (const row of rows) {
      const kind = Number(row.kind);
      const expiresAt = Number(row.expires_at);
      const common = { secret: String(row.secret), count: Number(row.permit_count), expiresAt };
      if (kind === 1) {
        const grant = { ...common, holder: String(row.holder), fencingToken: BigInt(row.fencing_token ?? 0) };
        (expiresAt > now ? holders : lapsed).push(grant);
      } else if (kind === 2) {
        const place = { ...common, ticket: Number(row.ticket) };
        lastTicket = Math.max(lastTicket, place.ticket);
        (expiresAt > now ? waiters : lapsed).push(place);
      }
    }
    this.now = now;
    this.storedPermits = own?.permit_count === null || own?.permit_count === undefined ? undefined : Number(own.permit_count);
    this.lastToken = BigInt(own?.fencing_token ?? 0);
    this.holders = holders.sort((a, b) => a.expiresAt - b.expiresAt);
    this.waiters = waiters.sort(inLineOrder);
    this.lapsed = lapsed;
    this.#lastTicket = lastTicket;
  }

  /** Permits held right now. */
  get inUse(): number {
    return this.holders.reduce((sum, grant) => sum + grant.count, 0);
  }

  /** Nobody holds or waits: the semaphore takes a new permit count. */
  get idle(): boolean {
    return this.holders.length === 0 && this.waiters.length === 0;
  }

  /** True when `secret` holds a live grant. */
  holds(secret: string): boolean {
    return this.holders.some((grant) => grant.secret === secret);
  }

  /** The index of `secret`'s live place in line, or -1. */
  placeOf(secret: string): number {
    return this.waiters.findIndex((place) => place.secret === secret);
  }

  /** The live places before `secret`'s (all of them when it has none, as it would join at the end). */
  aheadOf(secret: string): number {
    const place = this.placeOf(secret);
    return place === -1 ? this.waiters.length : place;
  }

  /** The ticket of a place taken now: behind every place in line, lapsed ones included. */
  nextTicket(): number {
    return this.#lastTicket + 1;
  }

  /**
   * Whether `count` of `permits` can go to `secret` now. Without a place in line (`tryAcquire`) only when nobody waits;
   * with one, when its count fits after the grants and after every place before it, so a waiter for many permits
   * holds back every later one, even one that would fit, and the places before it are served first or together.
   */
  admits(secret: string, count: number, permits: number, inLine: boolean): boolean {
    if (!inLine) return this.waiters.length === 0 && this.inUse + count <= permits;
    const ahead = this.waiters.slice(0, this.aheadOf(secret));
    return this.inUse + ahead.reduce((sum, place) => sum + place.count, 0) + count <= permits;
  }

  /**
   * The places whose turn it is: from the head of the line, each that fits after the grants and the places before it.
   * `gone`: a secret whose grant or place the change being made removes (it is left out).
   */
  turn(gone?: string): LinePlace[] {
    const permits = this.storedPermits ?? 0;
    let taken = this.holders.reduce((sum, grant) => sum + (grant.secret === gone ? 0 : grant.count), 0);
    const due: LinePlace[] = [];
    for (const place of this.waiters) {
      if (place.secret === gone) continue;
      taken += place.count;
      if (taken > permits) break;
      due.push(place);
    }
    return due;
  }

  /** How long a refused caller may sleep: until the soonest lease ends (1 ms when nothing is held: a waiter ahead is served first). */
  retryAfterMs(): number {
    const soonest = this.holders[0];
    return soonest === undefined ? 1 : Math.max(1, soonest.expiresAt - this.now);
  }

  /** The public view of semaphore `name`, or null when nobody holds or waits. */
  state(name: string): SemaphoreState | null {
    if (this.idle || this.storedPermits === undefined) return null;
    const holders = this.holders.map((grant) => ({
      holder: grant.holder,
      count: grant.count,
      fencingToken: grant.fencingToken,
      ttlRemainingMs: Math.max(0, grant.expiresAt - this.now),
    }));
    return { name, permits: this.storedPermits, inUse: this.inUse, holders, waiters: this.waiters.length };
  }
}

function inLineOrder(a: LinePlace, b: LinePlace): number {
  return a.ticket - b.ticket || (a.secret < b.secret ? -1 : a.secret > b.secret ? 1 : 0);
}
