import { setMaxListeners } from "node:events";
import { monotonicNow } from "@distlock/core/internal";
import type { SessionConnection } from "./session-connection.js";
import type { SessionLockId } from "./session-lock-id.js";

/** One pooled connection of a lock space, the server locks its session keeps, and what it is doing. */
export interface LockSession {
  readonly connection: SessionConnection;
  /** The locks this session keeps. */
  readonly locks: Set<HeldSessionLock>;
  /** The semaphore grants this session keeps (their rows live as long as the session). */
  readonly permits: Set<SessionLease>;
  /** Aborts when the session is gone (ended by either side, force-released, its provider closed): every lock it kept goes with it. */
  readonly gone: AbortController;
  /** Blocked in `waitLock`: nothing else may run on it, and it holds nothing until granted. */
  waiting: boolean;
  /** Statements sent and not yet answered. */
  inFlight: number;
  /** The idle limit last given to the server (0: none yet). */
  idleLimitMs: number;
}

/** A hold kept by a session, with its lease (enforced by this process: the session's idle limit covers `ttlMs`). */
export interface SessionLease {
  readonly session: LockSession;
  /** The longest lease asked for: the session's idle limit covers it. */
  ttlMs: number;
  /** `performance.now()` at which the lease ends unless renewed. */
  expiresAt: number;
}

/**
 * One owner's hold of one key's server lock, as the lock space keeps it: the session it is on, its lease (which the
 * space's `LeaseSweep` enforces), and what `inspect` and re-entry need. Core keeps the hold itself: its deadline and
 * lost signal (following `session.gone`), its handles, its renewals.
 */
export interface HeldSessionLock extends SessionLease {
  readonly key: string;
  readonly id: SessionLockId;
  readonly ownerSecret: string;
  readonly holder: string;
  readonly fencingToken: bigint;
  holdCount: number;
}

export function openedSession(connection: SessionConnection): LockSession {
  const gone = new AbortController();
  // Every hold on the session follows this signal, so it has as many listeners as the session has locks.
  setMaxListeners(0, gone.signal);
  return { connection, locks: new Set(), permits: new Set(), gone, waiting: false, inFlight: 0, idleLimitMs: 0 };
}

/** Moves the hold's lease end to `ttlMs` from now, never earlier than it was. */
export function extendLease(lock: SessionLease, ttlMs: number): void {
  lock.ttlMs = Math.max(lock.ttlMs, ttlMs);
  lock.expiresAt = Math.max(lock.expiresAt, monotonicNow() + ttlMs);
}

export function remainingMs(lock: SessionLease): number {
  return Math.max(0, lock.expiresAt - monotonicNow());
}
