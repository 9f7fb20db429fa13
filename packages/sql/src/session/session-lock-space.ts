import type { LockState } from "@distlock/core";
import type { DriverAcquireRequest, DriverGranted, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { monotonicNow } from "@distlock/core/internal";
import { LeaseSweep } from "./lease-sweep.js";
import { extendLease, type HeldSessionLock, type LockSession, remainingMs } from "./lock-session.js";
import { renewOnSessions } from "./renew-on-sessions.js";
import { SessionPermits } from "./semaphore/session-permits.js";
import type { SessionDialect } from "./session-connection.js";
import type { SessionLockId } from "./session-lock-id.js";
import { SessionLockIds } from "./session-lock-ids.js";
import { SessionPool } from "./session-pool.js";

/** A refused attempt cannot see how long another session will keep its lock; waiters block on the server instead. */
const UNKNOWN_HOLD_MS = 1_000;

/**
 * Every session lock of one database and table in this process: the connections that hold them, and each key's hold.
 * Providers over the same database share one space, so a key held by one is re-entered or reported by another.
 */
export class SessionLockSpace {
  readonly #dialect: SessionDialect;
  readonly #ids: SessionLockIds;
  /** The sessions that keep this space's locks and permits. */
  readonly pool: SessionPool;
  readonly #locks = new Map<string, HeldSessionLock>();
  /** A lease that passed without renewal frees its key, as an expired row would in table mode. */
  readonly #sweep = new LeaseSweep(() => this.#locks.values(), this.#expire.bind(this));
  /** Per key, the attempt in flight: a session re-grants a lock it holds, so one key's attempts take turns here. */
  readonly #turns = new Map<string, Promise<unknown>>();
  /** The semaphores of this space: their grants are kept by its sessions. */
  readonly permits: SessionPermits;

  /** `namespace`: hashed with each key into its server lock name (the table; on MySQL also the database). */
  constructor(dialect: SessionDialect, namespace: string, label: string) {
    this.#dialect = dialect;
    this.#ids = new SessionLockIds(namespace);
    this.pool = new SessionPool(dialect, label, (session, reason, cause) => this.#loseSession(session, reason, cause));
    this.permits = new SessionPermits(this, dialect.permits, namespace);
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
    return this.pool.onHolding(async (session) => {
      if (this.pool.needsIdleLimit(session, request.ttlMs)) await this.pool.limitIdle(session, request.ttlMs);
      const id = this.#ids.of(request.key);
      const token = await session.connection.tryLock(id);
      return token === null ? { acquired: false, retryAfterMs: UNKNOWN_HOLD_MS } : this.#register(request, session, id, token);
    });
  }

  #endTurn(key: string, settled: Promise<unknown>): void {
    if (this.#turns.get(key) === settled) this.#turns.delete(key);
  }

  /** Waits in the server's queue on a session of its own; `signal` cancels the wait there and rejects with its reason. */
  async acquire(request: DriverAcquireRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    return this.pool.onWaiting(async (session) => {
      await this.pool.limitIdle(session, request.ttlMs);
      const id = this.#ids.of(request.key);
      // The server starts the lease (the session's idle limit) when it grants, at some moment after this: a grant
      // read late (a frozen process) is then not fresh, and core proves it with a renewal before handing it out.
      const sentAt = monotonicNow();
      const token = await this.waitOnServer(session, id, signal);
      return this.#register(request, session, id, token, await this.#leaseStart(session, sentAt, request.ttlMs));
    }, signal);
  }

  /**
   * Waits in the server's queue for `id` on `session` (a waiting session) and answers its token; `signal` cancels the
   * wait on the server and rejects with its reason, giving back whatever the wait took.
   */
  async waitOnServer(session: LockSession, id: SessionLockId, signal: AbortSignal): Promise<bigint> {
    signal.throwIfAborted();
    let cancelled: Promise<void> | undefined;
    const cancel = () => {
      cancelled = this.pool.cancelWait(session);
    };
    signal.addEventListener("abort", cancel, { once: true });
    const waited = await session.connection.waitLock(id).then(
      (token) => ({ token }),
      (error: unknown) => ({ error }),
    );
    signal.removeEventListener("abort", cancel);
    if (signal.aborted) {
      // The cancel lands on whatever statement the session runs when it arrives: only once it is done may the session
      // give back (or run anything else). It may have cut the wait's statement short after the server took the lock (a
      // session lock outlives its statement's failure), so the lock is given back whether or not the wait answered.
      await cancelled;
      await this.#giveBackAfterCancel(session, id);
      throw signal.reason;
    }
    if ("error" in waited) throw waited.error;
    return waited.token;
  }

  /** Unlocks `id` on a session a cancel was just sent to (a no-op if it holds nothing); once more if the cancel hit the first. */
  async #giveBackAfterCancel(session: LockSession, id: SessionLockId): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await session.connection.unlock(id);
        return;
      } catch {
        if (session.connection.lost.aborted) return;
      }
    }
    session.connection.end();
  }

  /**
   * When the lease of a grant by a wait sent at `sentAt` starts. A wait longer than half the TTL would leave little
   * of a lease dated from its send, so a ping proves the session alive (and restarts the server's idle limit) and
   * dates it; if the ping fails, the send does and core's check of the grant fails the same way.
   */
  async #leaseStart(session: LockSession, sentAt: number, ttlMs: number): Promise<number> {
    const pingAt = monotonicNow();
    if (pingAt - sentAt <= ttlMs / 2) return sentAt;
    return this.pool
      .on(session, () => session.connection.ping())
      .then(
        () => pingAt,
        () => sentAt,
      );
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return renewOnSessions(
      renewals,
      ({ key, ownerSecret }) => {
        const lock = this.#locks.get(key);
        return lock?.ownerSecret === ownerSecret ? lock : undefined;
      },
      (lock) => this.#locks.get(lock.key) === lock,
      (session, ttlMs) => this.prove(session, ttlMs),
    );
  }

  /** One round trip on `session` that proves it alive and gives it an idle limit covering `ttlMs`; false if it failed. */
  prove(session: LockSession, ttlMs: number): Promise<boolean> {
    const pool = this.pool;
    return pool
      .on(session, () => (pool.needsIdleLimit(session, ttlMs) ? pool.limitIdle(session, ttlMs) : session.connection.ping()))
      .then(
        () => true,
        () => false,
      );
  }

  async release(key: string, ownerSecret: string): Promise<{ held: boolean; holdCount: number }> {
    const lock = this.#locks.get(key);
    if (lock === undefined || lock.ownerSecret !== ownerSecret) return { held: false, holdCount: 0 };
    lock.holdCount--;
    if (lock.holdCount > 0) return { held: true, holdCount: lock.holdCount };
    this.#forget(lock);
    const { session } = lock;
    session.inFlight++;
    try {
      return { held: await session.connection.unlock(lock.id), holdCount: 0 };
    } finally {
      session.inFlight--;
    }
  }

  async inspect(key: string): Promise<LockState | null> {
    const id = this.#ids.of(key);
    const view = await this.pool.onHolding((session) => this.#dialect.view(session.connection, id));
    if (view.holderSessionId === undefined) return null;
    const lock = this.#locks.get(key);
    if (lock !== undefined && lock.session.connection.sessionId === view.holderSessionId) {
      const { holder, holdCount, fencingToken } = lock;
      return { key, holder, holdCount, fencingToken, ttlRemainingMs: Math.ceil(remainingMs(lock)), waiters: view.waiters };
    }
    // Another process's session: the server shows its label and that it holds the key, not its count, token or lease.
    return { key, holder: view.holderLabel, holdCount: 1, fencingToken: null, ttlRemainingMs: 0, waiters: view.waiters };
  }

  /** Ends the session that holds `key`: every lock that session kept is freed with it. */
  async forceRelease(key: string): Promise<boolean> {
    const lock = this.#locks.get(key);
    if (lock !== undefined) {
      lock.session.connection.end();
      this.#loseSession(lock.session, "it was force-released (its database session was ended)");
      return true;
    }
    return this.pool.onHolding((session) => this.#dialect.endHolder(session.connection, this.#ids.of(key)));
  }

  /** Ends every connection: the server frees their locks. */
  close(): void {
    this.#sweep.stop();
    this.permits.close();
    for (const session of this.pool.close()) {
      session.connection.end();
      this.#loseSession(session, "its provider was closed");
    }
  }

  #reenter(request: DriverAcquireRequest): DriverAcquireResult | undefined {
    const lock = this.#locks.get(request.key);
    if (lock === undefined) return undefined;
    if (lock.ownerSecret !== request.ownerSecret) return { acquired: false, retryAfterMs: Math.max(1, remainingMs(lock)) };
    lock.holdCount++;
    extendLease(lock, request.ttlMs);
    const ttlMs = Math.max(1, Math.floor(remainingMs(lock)));
    return { acquired: true, fencingToken: lock.fencingToken, holdCount: lock.holdCount, ttlMs, lost: lock.session.gone.signal };
  }

  #register(request: DriverAcquireRequest, session: LockSession, id: SessionLockId, fencingToken: bigint, grantedAt?: number): DriverGranted {
    const { key, ownerSecret, holder, ttlMs } = request;
    const lock: HeldSessionLock = { key, id, ownerSecret, holder, fencingToken, session, holdCount: 1, ttlMs, expiresAt: monotonicNow() + ttlMs };
    this.#locks.set(key, lock);
    session.locks.add(lock);
    this.#sweep.due(lock.expiresAt);
    return { acquired: true, fencingToken, holdCount: 1, ttlMs, grantedAt, lost: session.gone.signal };
  }

  #expire(lock: HeldSessionLock): void {
    this.#forget(lock);
    const { session } = lock;
    void this.pool.on(session, () => session.connection.unlock(lock.id)).catch(() => session.connection.end());
  }

  #forget(lock: HeldSessionLock): void {
    if (this.#locks.get(lock.key) === lock) this.#locks.delete(lock.key);
    lock.session.locks.delete(lock);
  }

  #loseSession(session: LockSession, reason: string, cause?: unknown): void {
    if (!this.pool.remove(session)) return;
    for (const lock of session.locks) this.#forget(lock);
    session.gone.abort(new Error(reason, cause === undefined ? undefined : { cause }));
  }
}
