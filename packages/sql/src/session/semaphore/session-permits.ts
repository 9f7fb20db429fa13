import { randomUUID } from "node:crypto";
import { type PermitHolderState, PermitsMismatchError, type SemaphoreState } from "@distlock/core";
import type { DriverGranted, DriverPermitRequest, DriverRenewal } from "@distlock/core/driver";
import type { DriverAcquireResult } from "@distlock/core/internal";
import { Latch, MAX_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS, monotonicNow } from "@distlock/core/internal";
import { LeaseSweep } from "../lease-sweep.js";
import { type LockSession, remainingMs, type SessionLease } from "../lock-session.js";
import { renewOnSessions } from "../renew-on-sessions.js";
import { type SessionLockId, sessionLockId } from "../session-lock-id.js";
import { SessionLockIds } from "../session-lock-ids.js";
import type { SessionLockSpace } from "../session-lock-space.js";
import type { SessionPermitDialect, SessionPermitView } from "./session-permit-dialect.js";

/** A refused attempt cannot see how long the holders will keep their permits; waiters wait in the line instead. */
const UNKNOWN_HOLD_MS = 1_000;

/** One grant held by a session of this process. */
interface SessionPermitGrant extends SessionLease {
  readonly name: string;
  readonly ownerSecret: string;
  readonly holder: string;
  readonly token: bigint;
  readonly count: number;
}

/** The three server locks and the row key of one semaphore, each named apart from every lock key. */
interface SemaphoreIds {
  /** Held for each attempt's read-decide-write: attempts on one semaphore never interleave, across processes. */
  readonly mutex: SessionLockId;
  /** The line: waiters queue for it in arrival order, and the one holding it (the head) is the only one admitted past others. */
  readonly line: SessionLockId;
  /** The rows' semaphore column. */
  readonly rows: SessionLockId;
}

/**
 * Counting semaphores in session mode. A grant is a row (token, permit count, count, holder) written by the session that
 * holds it and tagged with a session lock only that session holds: the row counts exactly as long as the tag is held,
 * so a grant is lost the moment its session is (crash, kill, idle limit), as a session lock is. Each attempt reads the
 * semaphore's live rows, decides and writes under the semaphore's mutex lock, so no two attempts interleave. Waiters
 * queue for the line lock in the server's arrival order; the head polls its attempt (woken early by releases in this
 * process) until granted, then lets the line go.
 */
export class SessionPermits {
  readonly #space: SessionLockSpace;
  readonly #dialect: SessionPermitDialect;
  readonly #namespace: string;
  readonly #ids: { readonly mutex: SessionLockIds; readonly line: SessionLockIds; readonly rows: SessionLockIds };
  /** Grants held here, by owner secret (each grant has its own). */
  readonly #grants = new Map<string, SessionPermitGrant>();
  readonly #sweep = new LeaseSweep(() => this.#grants.values(), this.#expire.bind(this));
  /** Per session, its tag lock once taken. */
  readonly #tags = new WeakMap<LockSession, Promise<SessionLockId>>();
  /** Per session, the attempt in flight: an attempt holds a mutex lock, so a session never waits for one while holding another. */
  readonly #turns = new WeakMap<LockSession, Promise<unknown>>();
  /** The head of each line polling here, woken by a release here. */
  readonly #heads = new Map<string, Latch>();
  #prepared: Promise<void> | undefined;

  constructor(space: SessionLockSpace, dialect: SessionPermitDialect, namespace: string) {
    this.#space = space;
    this.#dialect = dialect;
    this.#namespace = namespace;
    this.#ids = {
      mutex: new SessionLockIds(`${namespace}\0semaphore-mutex`),
      line: new SessionLockIds(`${namespace}\0semaphore-line`),
      rows: new SessionLockIds(`${namespace}\0semaphore`),
    };
  }

  /** One attempt; sent on a session the server has just ended, it runs again on another (`SessionPool.onHolding`). */
  tryAcquire(request: DriverPermitRequest): Promise<DriverAcquireResult> {
    const { pool } = this.#space;
    return pool.onHolding((session) => this.#attempt(session, request, false));
  }

  /** Queues for the line on a session of its own, then, at its head, attempts until granted; `signal` leaves the line. */
  acquire(request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted> {
    signal.throwIfAborted();
    const { pool } = this.#space;
    return pool.onWaiting((session) => this.#waitInLine(session, request, signal), signal);
  }

  async #waitInLine(session: LockSession, request: DriverPermitRequest, signal: AbortSignal): Promise<DriverGranted> {
    const { line } = this.#semaphore(request.key);
    await this.#space.waitOnServer(session, line, signal);
    const wake = new Latch("spent-by-wait");
    this.#heads.set(request.key, wake);
    try {
      for (let pause = MIN_POLL_INTERVAL_MS; ; pause = Math.min(pause * 2, MAX_POLL_INTERVAL_MS)) {
        const result = await this.#attempt(session, request, true);
        if (result.acquired) {
          // Granted as the wait was given up: give it back before rejecting.
          if (signal.aborted) await this.release(request.key, request.ownerSecret).catch(() => session.connection.end());
          signal.throwIfAborted();
          return result;
        }
        await wake.wait(pause, signal);
        signal.throwIfAborted();
      }
    } finally {
      if (this.#heads.get(request.key) === wake) this.#heads.delete(request.key);
      // Before the grant is handed out, so the next in line is the head as soon as this one holds.
      await this.#space.pool.on(session, () => session.connection.unlock(line)).catch(() => session.connection.end());
    }
  }

  renew(renewals: readonly DriverRenewal[]): Promise<boolean[]> {
    return renewOnSessions(
      renewals,
      ({ key, ownerSecret }) => {
        const grant = this.#grants.get(ownerSecret);
        return grant?.name === key ? grant : undefined;
      },
      (grant) => this.#grants.get(grant.ownerSecret) === grant,
      (session, ttlMs) => this.#space.prove(session, ttlMs),
    );
  }

  /** Deletes the grant's row; false when this process no longer holds it (its lease ran out, its session ended). */
  async release(name: string, ownerSecret: string): Promise<boolean> {
    const grant = this.#grants.get(ownerSecret);
    if (grant?.name !== name) return false;
    this.#forget(grant);
    const { session } = grant;
    // A row outlives its session's end by nothing: failing to delete it, end the session and the grant is gone too.
    await this.#space.pool
      .on(session, () => this.#dialect.delete(session.connection, [grant.token]))
      .catch((error: unknown) => {
        session.connection.end();
        throw error;
      });
    this.#heads.get(name)?.open();
    return true;
  }

  async inspect(name: string): Promise<SemaphoreState | null> {
    const ids = this.#semaphore(name);
    const view = await this.#space.pool.onHolding(async (session) => {
      await this.#ready(session);
      return this.#dialect.read(session.connection, ids.rows, ids.line);
    });
    const live = view.rows.filter((row) => row.live);
    if (live.length === 0 && view.waiters === 0) return null;
    const local = new Map([...this.#grants.values()].filter((grant) => grant.name === name).map((grant) => [grant.token, grant]));
    const holders: PermitHolderState[] = live.map(({ token, holder, count }) => {
      const grant = local.get(token);
      // Another process's lease is kept there: the server shows that its session holds the permits, not for how long.
      return { holder, count, fencingToken: token, ttlRemainingMs: grant === undefined ? 0 : Math.ceil(remainingMs(grant)) };
    });
    holders.sort((a, b) => a.ttlRemainingMs - b.ttlRemainingMs);
    const inUse = live.reduce((sum, row) => sum + row.count, 0);
    return { name, permits: live[0]?.permits ?? 0, inUse, holders, waiters: view.waiters };
  }

  close(): void {
    this.#sweep.stop();
    for (const latch of this.#heads.values()) latch.open();
  }

  /**
   * One attempt on `session`: read, decide and write under the semaphore's mutex lock. `head`: the caller holds the line.
   * In flight from now to its end, so the session is not picked to wait in a line meanwhile: it would then block while
   * holding the mutex lock that the line's head needs.
   */
  #attempt(session: LockSession, request: DriverPermitRequest, head: boolean): Promise<DriverAcquireResult> {
    const previous = this.#turns.get(session) ?? Promise.resolve();
    const attempt = this.#space.pool.on(session, () => previous.then(() => this.#attemptInTurn(session, request, head)));
    this.#turns.set(
      session,
      attempt.catch(() => undefined),
    );
    return attempt;
  }

  async #attemptInTurn(session: LockSession, request: DriverPermitRequest, head: boolean): Promise<DriverAcquireResult> {
    const tag = await this.#ready(session);
    await this.#space.pool.limitIdle(session, request.ttlMs);
    const ids = this.#semaphore(request.key);
    const { connection } = session;
    const sentAt = monotonicNow();
    await this.#space.pool.on(session, () => connection.waitLock(ids.mutex));
    try {
      const view = await this.#space.pool.on(session, () => this.#dialect.read(connection, ids.rows, ids.line));
      const dead = view.rows.filter((row) => !row.live).map((row) => row.token);
      if (dead.length > 0) await this.#space.pool.on(session, () => this.#dialect.delete(connection, dead));
      if (!this.#admits(view, request, head)) return { acquired: false, retryAfterMs: UNKNOWN_HOLD_MS };
      const { permits, count, holder } = request;
      const token = await this.#space.pool.on(session, () => this.#dialect.insert(connection, { semaphore: ids.rows, permits, count, holder, tag }));
      return this.#register(request, session, token, sentAt);
    } finally {
      await this.#space.pool.on(session, () => connection.unlock(ids.mutex)).catch(() => connection.end());
    }
  }

  /** Whether `request` may take its permits now; `PermitsMismatchError` when the live grants have another permit count. */
  #admits(view: SessionPermitView, request: DriverPermitRequest, head: boolean): boolean {
    let inUse = 0;
    for (const row of view.rows) {
      if (!row.live) continue;
      if (row.permits !== request.permits) throw new PermitsMismatchError(request.key, request.permits, row.permits);
      inUse += row.count;
    }
    // Anyone in line goes first; the head itself holds the line lock, so it counts among the waiters.
    return (head || view.waiters === 0) && inUse + request.count <= request.permits;
  }

  #register(request: DriverPermitRequest, session: LockSession, token: bigint, grantedAt: number): DriverGranted {
    const { key: name, ownerSecret, holder, ttlMs, count } = request;
    const grant: SessionPermitGrant = { name, ownerSecret, holder, token, count, session, ttlMs, expiresAt: monotonicNow() + ttlMs };
    this.#grants.set(ownerSecret, grant);
    session.permits.add(grant);
    this.#sweep.due(grant.expiresAt);
    return { acquired: true, fencingToken: token, holdCount: 1, ttlMs, grantedAt, lost: session.gone.signal };
  }

  /** A lease that passed without renewal gives its permits back, as the row's session would on ending. */
  #expire(grant: SessionPermitGrant): void {
    this.#forget(grant);
    const { session } = grant;
    void this.#space.pool
      .on(session, () => this.#dialect.delete(session.connection, [grant.token]))
      .then(
        () => this.#heads.get(grant.name)?.open(),
        () => session.connection.end(),
      );
  }

  #forget(grant: SessionPermitGrant): void {
    if (this.#grants.get(grant.ownerSecret) === grant) this.#grants.delete(grant.ownerSecret);
    grant.session.permits.delete(grant);
  }

  /** The permit table exists and `session` holds its tag lock (taken once per session); answers the tag. */
  async #ready(session: LockSession): Promise<SessionLockId> {
    this.#prepared ??= this.#dialect.prepare(session.connection).catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    await this.#prepared;
    let tag = this.#tags.get(session);
    if (tag === undefined) {
      tag = this.#tag(session);
      this.#tags.set(session, tag);
      tag.catch(() => this.#tags.delete(session));
    }
    return tag;
  }

  async #tag(session: LockSession): Promise<SessionLockId> {
    // The session's grants are gone with it: forget them here at once.
    session.gone.signal.addEventListener("abort", () => {
      for (const grant of [...session.permits]) this.#forget(grant as SessionPermitGrant);
    });
    for (;;) {
      // 64 random bits on PostgreSQL: a tag another session holds (as likely as a collision of two keys) is drawn again.
      const tag = sessionLockId(`${this.#namespace}\0session-tag`, randomUUID());
      if ((await this.#space.pool.on(session, () => session.connection.tryLock(tag))) !== null) return tag;
    }
  }

  #semaphore(name: string): SemaphoreIds {
    return { mutex: this.#ids.mutex.of(name), line: this.#ids.line.of(name), rows: this.#ids.rows.of(name) };
  }
}
