import type { LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow } from "@distlock/core/internal";
import type { SessionConnection, SessionDialect } from "./session-connection.js";
import { SessionHold, type SessionSlot } from "./session-hold.js";
import { idleLimitFor, leastBusy } from "./session-idle-limit.js";
import type { SessionLockId } from "./session-lock-id.js";
import { SessionLockIds } from "./session-lock-ids.js";

/** A refused attempt cannot see how long another session will keep its lock; waiters block on the server instead. */
const UNKNOWN_HOLD_MS = 1_000;

/**
 * Every session lock of one database and table in this process: the connections that hold them, and each key's hold.
 * Providers over the same database share one space, so a key held by one is re-entered or reported by another.
 */
export class SessionLockSpace {
  readonly #dialect: SessionDialect;
  readonly #ids: SessionLockIds;
  readonly #label: string;
  readonly #slots = new Set<SessionSlot>();
  readonly #holds = new Map<string, SessionHold>();
  /** Per key, the attempt in flight: a session re-grants a lock it holds, so one key's attempts take turns here. */
  readonly #turns = new Map<string, Promise<unknown>>();
  #prepared: Promise<void> | undefined;
  #closed = false;

  /** `namespace`: hashed with each key into its server lock name (the table; on MySQL also the database). */
  constructor(dialect: SessionDialect, namespace: string, label: string) {
    this.#dialect = dialect;
    this.#ids = new SessionLockIds(namespace);
    this.#label = label;
  }

  tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const { key } = request;
    const previous = this.#turns.get(key);
    const attempt = previous === undefined ? this.#tryAcquire(request) : previous.then(() => this.#tryAcquire(request));
    // The next attempt on this key waits for this one to settle, whatever its outcome.
    const settled: Promise<unknown> = attempt.then(
      () => this.#endTurn(key, settled),
      () => this.#endTurn(key, settled),
    );
    this.#turns.set(key, settled);
    return attempt;
  }

  async #tryAcquire(request: DriverAcquireRequest): Promise<DriverAcquireResult> {
    const local = this.#reenter(request);
    if (local !== undefined) return local;
    const slot = leastBusy(this.#slots) ?? (await this.#open(false));
    if (this.#needsIdleLimit(slot, request.ttlMs)) await this.#limitIdle(slot, request.ttlMs);
    const id = this.#ids.of(request.key);
    slot.inFlight++;
    let token: bigint | null;
    try {
      token = await slot.connection.tryLock(id);
    } finally {
      slot.inFlight--;
    }
    return token === null ? { acquired: false, retryAfterMs: UNKNOWN_HOLD_MS } : this.#register(request, slot, id, token);
  }

  #endTurn(key: string, settled: Promise<unknown>): void {
    if (this.#turns.get(key) === settled) this.#turns.delete(key);
  }

  /** Waits in the server's queue on a session of its own; `signal` cancels the wait there and rejects with its reason. */
  async acquire(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    const slot = await this.#waitingSlot();
    try {
      await this.#limitIdle(slot, request.ttlMs);
      const cancel = () => void this.#cancelWait(slot);
      signal.addEventListener("abort", cancel, { once: true });
      const id = this.#ids.of(request.key);
      let token: bigint;
      // The server starts the lease (the session's idle limit) when it grants, at some moment after this: a grant read
      // late (a frozen process) is then not fresh, and core proves it with a renewal before handing it out.
      const sentAt = monotonicNow();
      try {
        token = await slot.connection.waitLock(id);
      } catch (error) {
        throw signal.aborted ? signal.reason : error;
      } finally {
        signal.removeEventListener("abort", cancel);
      }
      if (signal.aborted) {
        // Granted as the cancel was sent: give it back before rejecting.
        await slot.connection.unlock(id).catch(() => slot.connection.end());
        throw signal.reason;
      }
      return this.#register(request, slot, id, token, await this.#leaseStart(slot, sentAt, request.ttlMs));
    } finally {
      slot.waiting = false;
    }
  }

  /**
   * When the lease of a grant by a wait sent at `sentAt` starts. A wait longer than half the TTL would leave little
   * of a lease dated from its send, so a ping proves the session alive (and restarts the server's idle limit) and
   * dates it; if the ping fails, the send does and core's check of the grant fails the same way.
   */
  async #leaseStart(slot: SessionSlot, sentAt: number, ttlMs: number): Promise<number> {
    const pingAt = monotonicNow();
    if (pingAt - sentAt <= ttlMs / 2) return sentAt;
    return this.#on(slot, () => slot.connection.ping()).then(
      () => pingAt,
      () => sentAt,
    );
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    const bySlot = new Map<SessionSlot, { hold: SessionHold; ttlMs: number }[]>();
    const holds = renewals.map(({ key, ownerSecret, ttlMs }) => {
      const hold = this.#holds.get(key);
      if (hold === undefined || hold.ownerSecret !== ownerSecret) return undefined;
      const group = bySlot.get(hold.slot) ?? [];
      group.push({ hold, ttlMs });
      bySlot.set(hold.slot, group);
      return hold;
    });
    const renewed = new Set<SessionHold>();
    const pings = [...bySlot].map(async ([slot, group]) => {
      const longest = Math.max(...group.map(({ ttlMs }) => ttlMs));
      const proven = await this.#on(slot, () => (this.#needsIdleLimit(slot, longest) ? this.#limitIdle(slot, longest) : slot.connection.ping())).then(
        () => true,
        () => false,
      );
      if (!proven) return;
      for (const { hold, ttlMs } of group) {
        if (this.#holds.get(hold.key) !== hold) continue;
        hold.extend(ttlMs, this.#expire);
        renewed.add(hold);
      }
    });
    return Promise.all(pings).then(() => holds.map((hold) => hold !== undefined && renewed.has(hold)));
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    const hold = this.#holds.get(key);
    if (hold === undefined || hold.ownerSecret !== ownerSecret) return { held: false, holdCount: 0 };
    hold.holdCount--;
    if (hold.holdCount > 0) return { held: true, holdCount: hold.holdCount };
    this.#forget(hold);
    const { slot } = hold;
    slot.inFlight++;
    try {
      return { held: await slot.connection.unlock(hold.id), holdCount: 0 };
    } finally {
      slot.inFlight--;
    }
  }

  async inspect(key: string): Promise<LockState | null> {
    const id = this.#ids.of(key);
    const slot = await this.#holdingSlot();
    const view = await this.#on(slot, () => this.#dialect.view(slot.connection, id));
    if (view.holderSessionId === undefined) return null;
    const hold = this.#holds.get(key);
    if (hold !== undefined && hold.slot.connection.sessionId === view.holderSessionId) {
      const { holder, holdCount, fencingToken } = hold;
      return { key, holder, holdCount, fencingToken, ttlRemainingMs: Math.ceil(hold.remainingMs()), waiters: view.waiters };
    }
    // Another process's session: the server shows its label and that it holds the key, not its count, token or lease.
    return { key, holder: view.holderLabel, holdCount: 1, fencingToken: null, ttlRemainingMs: 0, waiters: view.waiters };
  }

  /** Ends the session that holds `key`: every lock that session kept is freed with it. */
  async forceRelease(key: string): Promise<boolean> {
    const hold = this.#holds.get(key);
    if (hold !== undefined) {
      hold.slot.connection.end();
      this.#loseSlot(hold.slot, "it was force-released (its database session was ended)");
      return true;
    }
    const slot = await this.#holdingSlot();
    return this.#on(slot, () => this.#dialect.endHolder(slot.connection, this.#ids.of(key)));
  }

  /** Ends every connection: the server frees their locks. */
  close(): void {
    this.#closed = true;
    for (const slot of [...this.#slots]) {
      slot.connection.end();
      this.#loseSlot(slot, "its provider was closed");
    }
  }

  #reenter(request: DriverAcquireRequest): DriverAcquireResult | undefined {
    const hold = this.#holds.get(request.key);
    if (hold === undefined) return undefined;
    if (hold.ownerSecret !== request.ownerSecret) return { acquired: false, retryAfterMs: Math.max(1, hold.remainingMs()) };
    hold.holdCount++;
    hold.extend(request.ttlMs, this.#expire);
    const ttlMs = Math.max(1, Math.floor(hold.remainingMs()));
    return { acquired: true, fencingToken: hold.fencingToken, holdCount: hold.holdCount, ttlMs, lost: hold.lost };
  }

  #register(request: DriverAcquireRequest, slot: SessionSlot, id: SessionLockId, fencingToken: bigint, grantedAt?: number): DriverGranted {
    const { key, ownerSecret, holder, ttlMs } = request;
    const hold = new SessionHold({ key, id, ownerSecret, holder, fencingToken, slot, ttlMs });
    hold.extend(request.ttlMs, this.#expire);
    this.#holds.set(request.key, hold);
    slot.holds.add(hold);
    return { acquired: true, fencingToken, holdCount: 1, ttlMs: request.ttlMs, grantedAt, lost: hold.lost };
  }

  /** A lease that passed without renewal frees its key, as an expired row would in table mode. */
  readonly #expire = (hold: SessionHold): void => {
    if (this.#holds.get(hold.key) !== hold) return;
    this.#forget(hold, "its lease passed without renewal");
    void this.#on(hold.slot, () => hold.slot.connection.unlock(hold.id)).catch(() => hold.slot.connection.end());
  };

  #forget(hold: SessionHold, lostBecause?: string, cause?: unknown): void {
    if (this.#holds.get(hold.key) === hold) this.#holds.delete(hold.key);
    hold.slot.holds.delete(hold);
    hold.end(lostBecause, cause);
  }

  #loseSlot(slot: SessionSlot, reason: string, cause?: unknown): void {
    if (!this.#slots.delete(slot)) return;
    for (const hold of [...slot.holds]) this.#forget(hold, reason, cause);
  }

  /** Sets the server's idle limit to the longest lease the session keeps, so a frozen or vanished client frees them by then. */
  async #limitIdle(slot: SessionSlot, ttlMs: number): Promise<void> {
    if (!this.#needsIdleLimit(slot, ttlMs)) return;
    const limit = idleLimitFor(slot, ttlMs, this.#dialect.idleGranularityMs);
    await this.#on(slot, () => slot.connection.limitIdle(limit));
    slot.idleLimitMs = limit;
  }

  #needsIdleLimit(slot: SessionSlot, ttlMs: number): boolean {
    return slot.idleLimitMs !== idleLimitFor(slot, ttlMs, this.#dialect.idleGranularityMs);
  }

  async #cancelWait(victim: SessionSlot): Promise<void> {
    try {
      const via = await this.#holdingSlot();
      await this.#on(via, () => this.#dialect.cancelWait(via.connection, victim.connection));
    } catch {
      victim.connection.end();
    }
  }

  /** The least busy session that is not waiting; the first one is opened on demand. */
  async #holdingSlot(): Promise<SessionSlot> {
    return leastBusy(this.#slots) ?? this.#open(false);
  }

  /** A session that keeps nothing (so its wait can deadlock with no one), or a new one. */
  async #waitingSlot(): Promise<SessionSlot> {
    for (const slot of this.#slots) {
      if (!slot.waiting && slot.holds.size === 0 && slot.inFlight === 0) {
        slot.waiting = true;
        return slot;
      }
    }
    return this.#open(true);
  }

  async #open(waiting: boolean): Promise<SessionSlot> {
    const connection: SessionConnection = await this.#dialect.open(this.#label);
    this.#prepared ??= this.#dialect.prepare(connection).catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    try {
      await this.#prepared;
    } catch (error) {
      connection.end();
      throw error;
    }
    const slot: SessionSlot = { connection, holds: new Set(), waiting, inFlight: 0, idleLimitMs: 0 };
    if (this.#closed) {
      connection.end();
      throw new Error("the provider was closed");
    }
    this.#slots.add(slot);
    connection.lost.addEventListener("abort", () => this.#loseSlot(slot, "its database session ended", connection.lost.reason), { once: true });
    return slot;
  }

  async #on<T>(slot: SessionSlot, statement: () => Promise<T>): Promise<T> {
    slot.inFlight++;
    try {
      return await statement();
    } finally {
      slot.inFlight--;
    }
  }
}
