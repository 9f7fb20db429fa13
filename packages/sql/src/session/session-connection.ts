import type { SessionPermitDialect } from "./semaphore/session-permit-dialect.js";
import type { SessionLockId } from "./session-lock-id.js";

/** One dedicated connection whose server session holds locks. */
export interface SessionConnection {
  /** The server's id of the session (PostgreSQL backend pid, MySQL connection id). */
  readonly sessionId: number;
  /** Aborts once the connection is gone (closed by either side, reset, timed out): its locks are gone with it. */
  readonly lost: AbortSignal;
  /** Takes the lock if free, with its fencing token in the same round trip; null when another session holds it. */
  tryLock(id: SessionLockId): Promise<bigint | null>;
  /** Waits in the server's queue until granted; ends early only when `cancel` is sent from another session. */
  waitLock(id: SessionLockId): Promise<bigint>;
  /** Drops the lock this session holds; false if it did not hold it. */
  unlock(id: SessionLockId): Promise<boolean>;
  /** Lets the server end this session once it has been idle (no statement) for `ms`, so a frozen client's locks free themselves. */
  limitIdle(ms: number): Promise<void>;
  /** One round trip that proves the session is alive. */
  ping(): Promise<void>;
  /** Runs one statement on this session (bounded by the query timeout) and returns its rows. */
  rows<R>(sql: string, values?: readonly unknown[]): Promise<R[]>;
  /** Closes the connection (its locks go with it). */
  end(): void;
}

/** What another session can see of a key's server lock. */
export interface SessionLockView {
  /** The session holding it, or undefined when free. */
  readonly holderSessionId: number | undefined;
  /** The holding session's label (its `application_name` / connection attribute). */
  readonly holderLabel: string;
  /** Sessions queued for it. */
  readonly waiters: number;
}

/** The dialect-specific part of session mode. */
export interface SessionDialect {
  readonly backend: "postgres" | "mysql";
  /** Granularity of `limitIdle` (MySQL's `wait_timeout` is whole seconds). */
  readonly idleGranularityMs: number;
  /** Opens a session labelled `label` (shown by `inspect` to other processes). */
  open(label: string): Promise<SessionConnection>;
  /** Creates what fencing tokens need (a sequence), if missing. */
  prepare(via: SessionConnection): Promise<void>;
  /** The server's view of the lock. */
  view(via: SessionConnection, id: SessionLockId): Promise<SessionLockView>;
  /** Ends whatever session holds the lock (every lock of that session goes with it); true if one was ended. */
  endHolder(via: SessionConnection, id: SessionLockId): Promise<boolean>;
  /** Interrupts `victim`'s `waitLock` from another session. */
  cancelWait(via: SessionConnection, victim: SessionConnection): Promise<void>;
  /** The statements of semaphores (a table of grants whose rows live as long as their session). */
  readonly permits: SessionPermitDialect;
}
