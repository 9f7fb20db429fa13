import type { PgListenConnection } from "../postgres/postgres-client-api.js";
import type { AnyKysely } from "../table/any-kysely.js";

/** A client held for LISTEN; `release` gives it back (or closes it) and tolerates a broken client. */
export interface ListenClient {
  readonly client: PgListenConnection;
  release(broken: boolean): void;
}

/** The provider's way to the database. */
export interface SqlConnection {
  /** Every statement goes through this. */
  readonly db: AnyKysely;
  /** PostgreSQL only: a dedicated client for LISTEN, when one can be had. */
  readonly openListenClient: (() => Promise<ListenClient>) | undefined;
  /** Resolves once the client library the connection needs is loaded (contacting nothing); rejects with `InvalidConfigError` naming the package to install. */
  ready(): Promise<void>;
  /** Closes what the provider created; leaves what the caller gave alone. */
  close(): Promise<void>;
}
