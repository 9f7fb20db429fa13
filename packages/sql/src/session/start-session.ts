import { InvalidConfigError } from "@distlock/core";
import type { SessionConnection } from "./session-connection.js";
import type { SessionLockId } from "./session-lock-id.js";

/** A statement and its parameters. */
export interface SessionStatement {
  readonly sql: string;
  readonly values: readonly unknown[];
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
  /** The statement's rows; `timeoutMs` 0 lets it run as long as it needs (a wait). */
  query<R>(sql: string, values: readonly unknown[], timeoutMs: number): Promise<R[]>;
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
}

/**
 * Connects `client` and runs the session operations on it with `statements`. A statement that times out or breaks
 * the connection ends the session (its state, and so its locks, are unknown); `lost` also aborts when we end it.
 */
export async function startSession(client: SessionClient, statements: SessionStatements, settings: SessionSettings): Promise<SessionConnection> {
  const endedHere = new AbortController();
  const lost = AbortSignal.any([client.lost, endedHere.signal]);
  const end = () => {
    if (!endedHere.signal.aborted) endedHere.abort(new Error("the connection was closed by this process"));
    client.end();
  };
  try {
    await client.connect();
  } catch (error) {
    end();
    throw error;
  }
  const rows = async <R>(sql: string, values: readonly unknown[] = [], timeoutMs = settings.queryTimeoutMs): Promise<R[]> => {
    try {
      return await client.query<R>(sql, values, timeoutMs);
    } catch (error) {
      if (!settings.keepsSession(error)) end();
      throw error;
    }
  };
  const run = async <R>({ sql, values }: SessionStatement, timeoutMs?: number): Promise<R> => (await rows<R>(sql, values, timeoutMs))[0] as R;
  const sessionId = Number((await run<{ pid: number | string }>({ sql: statements.sessionId, values: [] })).pid);
  const inSession = <R extends { pid: number | string }>(row: R): R => {
    if (Number(row.pid) === sessionId) return row;
    end();
    throw new InvalidConfigError(
      settings.urlField,
      `mode=session needs a connection that stays one server session, but its statements ran on different sessions (${settings.poolerHint}?): connect directly or use session pooling`,
    );
  };
  const token = (value: string | number | null): bigint | null => (value === null ? null : BigInt(value));
  return {
    sessionId,
    lost,
    async tryLock(id) {
      return token(inSession(await run<{ token: string | null; pid: number }>(statements.tryLock(id))).token);
    },
    async waitLock(id) {
      const granted = token(inSession(await run<{ token: string | null; pid: number }>(statements.waitLock(id), 0)).token);
      if (granted === null) throw new Error("the wait for the lock was interrupted");
      return granted;
    },
    async unlock(id) {
      const { released } = await run<{ released: boolean | number | null }>(statements.unlock(id));
      return released === true || Number(released) === 1;
    },
    async limitIdle(ms) {
      await run(statements.limitIdle(ms));
    },
    async ping() {
      await rows("SELECT 1");
    },
    rows,
    end,
  };
}
