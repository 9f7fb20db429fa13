import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";

/** A statement pg runs as a named prepared statement, parsed and planned once per connection. */
export interface PgNamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** A NOTIFY delivered to a client that runs LISTEN. */
export interface PgNotification {
  readonly channel: string;
  readonly payload?: string;
}

/** The events of a pg client this package listens to. */
export interface PgClientEvents {
  /** The connection failed; without a listener pg would throw it as an unhandled "error" event. */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** The connection ended. */
  on(event: "end", listener: () => void): unknown;
  /** A NOTIFY on a channel the client listens to. */
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
}

/** A client checked out of a pg pool: what kysely calls, and what this package adds. */
export interface PgPoolClient extends PostgresPoolClient, PgClientEvents {
  /** A statement, with parameters as kysely sends it or without (LISTEN). */
  query<R>(sql: string, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  /** A cursor, as kysely streams with it. */
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  /** A named prepared statement. */
  query<R>(statement: PgNamedStatement): Promise<PostgresQueryResult<R>>;
  /** Returns the client to its pool; `broken` destroys it instead. */
  release(broken?: boolean): void;
}

/** A `pg.Pool`, as far as this package uses it. */
export interface PgPool extends PostgresPool {
  /** Checks a client out. */
  connect(): Promise<PgPoolClient>;
  /** A new client joined the pool. */
  on(event: "connect", listener: (client: PgPoolClient) => void): unknown;
  /** An idle client failed; without a listener pg would throw it as an unhandled "error" event. */
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** A pool this package made from a URL (a real `pg.Pool`): it also runs one statement on a client checked out for it alone. */
export interface PgQueryPool extends PgPool {
  query<R>(text: string, values: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(statement: PgNamedStatement): Promise<PostgresQueryResult<R>>;
  /** Set once `end()` was called. */
  readonly ending: boolean;
  /** Checkouts waiting for a client. */
  readonly waitingCount: number;
  /** Clients connected and not checked out. */
  readonly idleCount: number;
}

/** A connection kept for LISTEN: its own `pg.Client` or one checked out of a pool. */
export interface PgListenConnection extends PgClientEvents {
  /** Runs a statement without parameters. */
  query(sql: string): Promise<unknown>;
}

/** A `pg.Client` of our own, kept for LISTEN. */
export interface PgClient extends PgListenConnection {
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Closes the connection. */
  end(): Promise<void>;
}

/** The settings this package gives a pool or client it creates. */
export interface PgConnectionConfig {
  host: string | undefined;
  port: number;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  max: number;
  connectionTimeoutMillis: number;
  query_timeout: number;
  idleTimeoutMillis: number;
  keepAlive: boolean;
  application_name: string;
}

/** The `pg` module's default export, as far as this package uses it. */
export interface PgModule {
  Pool: new (config: PgConnectionConfig) => PgPool;
  Client: new (config: PgConnectionConfig) => PgClient;
}
