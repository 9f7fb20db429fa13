/** One statement as mysql2's callback API takes it. */
export interface Mysql2QueryOptions {
  readonly sql: string;
  readonly values: unknown[];
  /** Inactivity timeout in ms; the statement fails with `PROTOCOL_SEQUENCE_TIMEOUT` after it. */
  readonly timeout: number;
}

/** A connection checked out of a mysql2 pool. */
export interface Mysql2PoolConnection {
  /** Runs a statement; without a callback the returned query object is what kysely streams from. */
  query(options: Mysql2QueryOptions, callback?: (error: unknown, result: unknown) => void): unknown;
  /** Returns the connection to its pool. */
  release(): void;
  /** Closes the connection and drops it from its pool. */
  destroy(): void;
}

/** A mysql2 pool (callback API), as far as this package uses it. */
export interface Mysql2Pool {
  /** Checks a connection out, waiting for a free one. */
  getConnection(callback: (error: unknown, connection: Mysql2PoolConnection) => void): void;
  /** Closes every connection. */
  end(callback: (error: unknown) => void): void;
}

/** The settings of every connection this package opens from a URL. */
export interface Mysql2ConnectionOptions {
  host: string | undefined;
  port: number;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  connectTimeout: number;
  enableKeepAlive: boolean;
  keepAliveInitialDelay?: number;
  supportBigNumbers: boolean;
  bigNumberStrings: boolean;
  charset: string;
  timezone: string;
  /** Sent at login; `program_name` shows in `performance_schema.session_connect_attrs`. */
  connectAttributes?: Record<string, string>;
}

/** The settings this package gives a pool it creates. */
export interface Mysql2PoolOptions extends Mysql2ConnectionOptions {
  connectionLimit: number;
  waitForConnections: boolean;
}

/** A single connection of its own (callback API), as session mode uses it. */
export interface Mysql2Connection {
  connect(callback: (error: unknown) => void): void;
  query(options: Mysql2QueryOptions, callback: (error: unknown, result: unknown) => void): unknown;
  /** "error": the connection failed (fatal); "end": it closed. */
  on(event: "error" | "end", listener: (error?: unknown) => void): unknown;
  /** Closes the socket at once. */
  destroy(): void;
}

/** The `mysql2` module's default export, as far as this package uses it. */
export interface Mysql2Module {
  createPool(options: Mysql2PoolOptions): Mysql2Pool;
  createConnection(options: Mysql2ConnectionOptions): Mysql2Connection;
}
