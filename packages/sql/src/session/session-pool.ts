import { LockError } from "@distlock/core";
import { type LockSession, openedSession } from "./lock-session.js";
import type { SessionConnection, SessionDialect } from "./session-connection.js";
import { idleLimitFor, leastBusy } from "./session-idle-limit.js";

/**
 * The database sessions of one lock space: opened on demand (the first one prepares the database), picked least busy
 * for short statements or idle for a wait, given idle limits that cover their leases. `lost` hears of a session the
 * server or the network ended.
 */
export class SessionPool {
  readonly #dialect: SessionDialect;
  readonly #label: string;
  readonly #lost: (session: LockSession, reason: string, cause: unknown) => void;
  readonly #sessions = new Set<LockSession>();
  #prepared: Promise<void> | undefined;
  #closed = false;

  constructor(dialect: SessionDialect, label: string, lost: (session: LockSession, reason: string, cause: unknown) => void) {
    this.#dialect = dialect;
    this.#label = label;
    this.#lost = lost;
  }

  /** Sets the server's idle limit to the longest lease the session keeps, so a frozen or vanished client frees them by then. */
  async limitIdle(session: LockSession, ttlMs: number): Promise<void> {
    if (!this.needsIdleLimit(session, ttlMs)) return;
    const limit = idleLimitFor(session, ttlMs, this.#dialect.idleGranularityMs);
    await this.on(session, () => session.connection.limitIdle(limit));
    session.idleLimitMs = limit;
  }

  needsIdleLimit(session: LockSession, ttlMs: number): boolean {
    return session.idleLimitMs !== idleLimitFor(session, ttlMs, this.#dialect.idleGranularityMs);
  }

  /** Cancels `victim`'s wait on the server from another session; if that cannot be done, ends `victim`. */
  async cancelWait(victim: LockSession): Promise<void> {
    try {
      await this.onHolding((via) => this.#dialect.cancelWait(via.connection, victim.connection));
    } catch {
      victim.connection.end();
    }
  }

  /**
   * Runs `attempt` on the least busy session that is not waiting (the first one is opened on demand), counted in flight
   * from the moment it is picked: no wait is sent on it meanwhile, or the server would grant that wait any lock the
   * attempt takes there.
   */
  onHolding<T>(attempt: (session: LockSession) => Promise<T>): Promise<T> {
    return this.#onLive(this.#claimHolding, releaseHolding, attempt);
  }

  /** Runs `attempt` on a session that keeps nothing (so its wait can deadlock with no one), or a new one, marked waiting until it settles. */
  onWaiting<T>(attempt: (session: LockSession) => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.#onLive(this.#claimWaiting, releaseWaiting, attempt, signal);
  }

  /**
   * Runs `attempt` on the session `claim` gives, and once more on the one it gives then if that session ended as the
   * attempt ran: the server's idle limit ends a session whose leases all ran out, and one can be picked just as that
   * happens. Whatever the attempt did there ended with the session, so running it again is safe.
   */
  async #onLive<T>(
    claim: () => Promise<LockSession>,
    release: (session: LockSession) => void,
    attempt: (session: LockSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    for (let tries = 1; ; tries++) {
      const session = await claim();
      try {
        return await attempt(session);
      } catch (error) {
        // A refusal (e.g. statements that reached another server session through a pooler) is an answer, not a loss.
        if (tries === 2 || !session.connection.lost.aborted || LockError.is(error) || signal?.aborted === true || this.#closed) throw error;
      } finally {
        release(session);
      }
    }
  }

  readonly #claimHolding = (): Promise<LockSession> => {
    const session = leastBusy(this.#sessions);
    if (session === undefined) return this.#open(claimHolding);
    claimHolding(session);
    return Promise.resolve(session);
  };

  readonly #claimWaiting = (): Promise<LockSession> => {
    for (const session of this.#sessions) {
      if (!session.waiting && session.locks.size === 0 && session.permits.size === 0 && session.inFlight === 0) {
        claimWaiting(session);
        return Promise.resolve(session);
      }
    }
    return this.#open(claimWaiting);
  };

  /** Runs `statement` on `session`, counted as in flight there (so the least busy session is picked for others). */
  async on<T>(session: LockSession, statement: () => Promise<T>): Promise<T> {
    claimHolding(session);
    try {
      return await statement();
    } finally {
      releaseHolding(session);
    }
  }

  /** Takes `session` out of the pool; false if it was not in it (already lost). */
  remove(session: LockSession): boolean {
    return this.#sessions.delete(session);
  }

  /** Opens no more sessions; returns the open ones for the caller to end. */
  close(): LockSession[] {
    this.#closed = true;
    return [...this.#sessions];
  }

  /** Opens a session, `claim`ed before any other caller can see it. */
  async #open(claim: (session: LockSession) => void): Promise<LockSession> {
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
    const session = openedSession(connection);
    if (this.#closed) {
      connection.end();
      throw new Error("the provider was closed");
    }
    claim(session);
    this.#sessions.add(session);
    connection.lost.addEventListener("abort", () => this.#lost(session, "its database session ended", connection.lost.reason), { once: true });
    return session;
  }
}

function claimHolding(session: LockSession): void {
  session.inFlight++;
}

function releaseHolding(session: LockSession): void {
  session.inFlight--;
}

function claimWaiting(session: LockSession): void {
  session.waiting = true;
}

function releaseWaiting(session: LockSession): void {
  session.waiting = false;
}
