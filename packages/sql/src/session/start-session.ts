import { InvalidConfigError } from "@distlock/core";
import type { CallDeadlines, CallOutcomes } from "@distlock/core/internal";
import type { SessionConnection } from "./session-connection.js";
import type { SessionLockId } from "./session-lock-id.js";

/** A statement and its parameters. */
export interface SessionStatement {
  readonly sql: string;
  readonly values: unknown[];
  /**
   * Runs as a server-side prepared statement, parsed and planned once per session: PostgreSQL's named statement of
   * this name; mysql2 keeps its prepared statements per connection by their text, so there the name is only a label.
   */
  readonly prepared?: string;
}

/** One dialect's statements for the session operations; every lock statement also returns the session id as `pid`. */
export interface SessionStatements {
  /** One row `{ pid }`: the server's id of this session. */
  readonly sessionId: string;
  /** One row `{ token, pid }`: takes the lock if free and draws its token in the same statement; `token` null when refused. */
  tryLock(id: SessionLockId): SessionStatement;
  /** One row `{ token, pid }`: waits in the server's queue; `token` null only if the wait was interrupted. */
  waitLock(id: SessionLockId): SessionStatement;
  /** One row `{ released }`: true (or 1) if this session held the lock. */
  unlock(id: SessionLockId): SessionStatement;
  /** Ends this session once it has been idle for `ms` (a whole number of the dialect's idle granularity). */
  limitIdle(ms: number): SessionStatement;
}

/** A driver's connection (`pg.Client`, mysql2 `Connection`) adapted to what a session needs. */
export interface SessionClient {
  connect(): Promise<void>;
  /** Sends `statement` (no timeout of its own: the session bounds it); `done` gets its rows or the error. */
  send(statement: SessionStatement, done: (error: unknown, rows: unknown[]) => void): void;
  /** Aborts once the connection errors or ends. */
  readonly lost: AbortSignal;
  /** Closes the connection without waiting (the server frees its locks). */
  end(): void;
}

export interface SessionSettings {
  readonly queryTimeoutMs: number;
  /** The `url` option's field, named when the connection turns out not to be a session of its own. */
  readonly urlField: string;
  /** The poolers that would hand statements of one connection to different server sessions (for the error). */
  readonly poolerHint: string;
  /** Whether the session survives `error` (a cancelled statement, a server error) with its locks intact. */
  keepsSession(error: unknown): boolean;
  /**
   * Whether `error` shows that a statement reached another server session than the one this connection prepared it
   * on (PostgreSQL: the named statement does not exist), which only a pooler does: it is refused as the pid check is.
   */
  reachedAnotherSession?(error: unknown): boolean;
  /** Bounds the statements of every session of the dialect with one timer (instead of a timer per statement). */
  readonly deadlines: CallDeadlines;
}

/**
 * The outcomes of every bounded statement, shared (no closures per statement): a statement that times out or breaks
 * the connection ends the session, since its state, and so its locks, are then unknown.
 */
const STATEMENT_OUTCOMES: CallOutcomes<unknown[], unknown[], Session> = {
  value: (rows) => rows,
  error(error, session) {
    if (session.settings.reachedAnotherSession?.(error) === true) return session.refuseAsPooled();
    if (!session.settings.keepsSession(error)) session.end();
    return error;
  },
  timedOut(timeoutMs, session) {
    session.end();
    return new Error(`no answer within ${timeoutMs} ms (queryTimeoutMs); the session was closed`);
  },
};

/** One connected session; the connection's operations as `SessionConnection` gives them. */
class Session implements SessionConnection {
  readonly settings: SessionSettings;
  readonly lost: AbortSignal;
  sessionId = 0;
  readonly #client: SessionClient;
  readonly #statements: SessionStatements;
  readonly #endedHere = new AbortController();

  constructor(client: SessionClient, statements: SessionStatements, settings: SessionSettings) {
    this.#client = client;
    this.#statements = statements;
    this.settings = settings;
    this.lost = AbortSignal.any([client.lost, this.#endedHere.signal]);
  }

  async tryLock(id: SessionLockId): Promise<bigint | null> {
    return this.#token(await this.#run(this.#statements.tryLock(id), this.settings.queryTimeoutMs));
  }

  async waitLock(id: SessionLockId): Promise<bigint> {
    const granted = this.#token(await this.#run(this.#statements.waitLock(id), 0));
    if (granted === null) throw new Error("the wait for the lock was interrupted");
    return granted;
  }

  async unlock(id: SessionLockId): Promise<boolean> {
    const [row] = (await this.#run(this.#statements.unlock(id), this.settings.queryTimeoutMs)) as [{ released: boolean | number | null }];
    return row.released === true || Number(row.released) === 1;
  }

  async limitIdle(ms: number): Promise<void> {
    await this.#run(this.#statements.limitIdle(ms), this.settings.queryTimeoutMs);
  }

  async ping(): Promise<void> {
    await this.rows("SELECT 1");
  }

  rows<R>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.#run({ sql, values: [...values] }, this.settings.queryTimeoutMs) as Promise<R[]>;
  }

  /** Ends the session and returns the error for a connection whose statements run on more than one server session. */
  refuseAsPooled(): InvalidConfigError {
    this.end();
    return new InvalidConfigError(
      this.settings.urlField,
      `mode=session needs a connection that stays one server session, but its statements ran on different sessions (${this.settings.poolerHint}?): connect directly or use session pooling`,
    );
  }

  end(): void {
    if (!this.#endedHere.signal.aborted) this.#endedHere.abort(new Error("the connection was closed by this process"));
    this.#client.end();
  }

  async connect(): Promise<void> {
    try {
      await this.#client.connect();
    } catch (error) {
      this.end();
      throw error;
    }
    const [row] = (await this.rows<{ pid: number | string }>(this.#statements.sessionId)) as [{ pid: number | string }];
    this.sessionId = Number(row.pid);
  }

  /** `statement`'s rows; `timeoutMs` 0 lets it run as long as it needs (a wait). */
  #run(statement: SessionStatement, timeoutMs: number): Promise<unknown[]> {
    const call = new Promise<unknown[]>((resolve, reject) => this.#client.send(statement, (error, rows) => (error ? reject(error) : resolve(rows))));
    if (timeoutMs === 0) return call.catch((error: unknown) => Promise.reject(STATEMENT_OUTCOMES.error(error, this)));
    return this.settings.deadlines.settle(call, timeoutMs, STATEMENT_OUTCOMES, this);
  }

  /** The token of a lock statement's row, after checking that the statement ran on this session. */
  #token(rows: unknown[]): bigint | null {
    const [row] = rows as [{ token: string | number | null; pid: number | string }];
    if (Number(row.pid) !== this.sessionId) throw this.refuseAsPooled();
    return row.token === null ? null : BigInt(row.token);
  }
}

/**
 * Connects `client` and runs the session operations on it with `statements`. A statement that times out or breaks
 * the connection ends the session (its state, and so its locks, are unknown); `lost` also aborts when we end it.
 */
export async function startSession(client: SessionClient, statements: SessionStatements, settings: SessionSettings): Promise<SessionConnection> {
  const session = new Session(client, statements, settings);
  await session.connect();
  return session;
}
