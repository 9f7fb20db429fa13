import type { SessionConnection } from "../session-connection.js";
import type { SessionLockId } from "../session-lock-id.js";

/** One grant's row in the permit table, as any session reads it. */
export interface SessionPermitRow {
  /** The grant's fencing token (drawn from the session-mode sequence): also the row's key. */
  readonly token: bigint;
  /** The permit count the grant was taken with. */
  readonly permits: number;
  /** Permits it holds. */
  readonly count: number;
  /** Public label of the holder. */
  readonly holder: string;
  /** Whether the session that took it still holds its tag lock, i.e. still exists: a dead session's rows count for nothing. */
  readonly live: boolean;
}

/** A semaphore as the server shows it: its grants' rows and how many wait in its line. */
export interface SessionPermitView {
  readonly rows: readonly SessionPermitRow[];
  /** Sessions holding or queued for the semaphore's line lock (only waiters take it). */
  readonly waiters: number;
}

/** A grant to write, on the session that holds `tag`. */
export interface NewSessionPermit {
  readonly semaphore: SessionLockId;
  readonly permits: number;
  readonly count: number;
  readonly holder: string;
  /** The session's tag lock: the row lives exactly as long as the session holds it. */
  readonly tag: SessionLockId;
}

/** The database-specific statements of session-mode semaphores (see `SessionPermits`). */
export interface SessionPermitDialect {
  /** Creates the permit table, if missing. */
  prepare(via: SessionConnection): Promise<void>;
  /** The semaphore's rows, each with whether its session is alive, and the waiters on its line lock. One statement. */
  read(via: SessionConnection, semaphore: SessionLockId, line: SessionLockId): Promise<SessionPermitView>;
  /** Writes the grant with a fresh token from the session-mode sequence; answers the token. */
  insert(via: SessionConnection, grant: NewSessionPermit): Promise<bigint>;
  /** Deletes the rows of these tokens. */
  delete(via: SessionConnection, tokens: readonly bigint[]): Promise<void>;
}
