import type { LockUrl } from "@distlock/core/driver";
import { Kysely, PostgresDialect } from "kysely";
import { type ClientLibraryRequest, loadClientLibrary } from "../connection/load-client-library.js";
import type { ListenClient, SqlConnection } from "../connection/sql-connection.js";
import { urlServer } from "../connection/url-server.js";
import type { ResolvedSqlLockOptions } from "../options/sql-lock-provider-options.js";
import { runStatementsDirectly } from "../table/direct-statements.js";
import { poolQuery } from "./pool-query.js";
import type { PgConnectionConfig, PgModule, PgPool, PgQueryPool } from "./postgres-client-api.js";
import { PreparedPostgresPool } from "./prepared-postgres-pool.js";

const DEFAULT_POSTGRES_PORT = 5432;

/** Pools already guarded: several providers may share one caller-owned pool. */
const guardedPools = new WeakSet<PgPool>();

/** A pool of our own from a `postgres://` URL, created on first use once `pg` is loaded; every connect and query is time-bounded. */
export function openPostgresUrl(url: LockUrl, options: ResolvedSqlLockOptions, request: ClientLibraryRequest): SqlConnection {
  const config = postgresUrlConfig(url, options);
  const pg = loadClientLibrary<PgModule>("pg", request);
  let pool: Promise<PgPool> | undefined;
  const createPool = () => {
    pool ??= pg.then((module) => {
      const created = new module.Pool(config);
      // An idle client dropped by a restarting server emits "error"; the next query reconnects.
      created.on("error", () => undefined);
      guardCheckedOutClients(created);
      return created;
    });
    return pool;
  };
  const prepared = options.preparedStatements;
  const statements = poolQuery(createPool, prepared);
  const kyselyPool = async () => {
    const shared = statements.sharing(await createPool());
    return prepared ? new PreparedPostgresPool(shared, true) : shared;
  };
  const db = new Kysely({ dialect: new PostgresDialect({ pool: kyselyPool }) });
  runStatementsDirectly(db, statements.query);
  return {
    db,
    openListenClient: options.listen ? async () => openOwnListenClient(await pg, config) : undefined,
    ready: () => pg.then(() => undefined),
    // kysely ends the pool only if a statement of its own opened it; a direct statement may have been the only one.
    close: async () => {
      statements.close();
      await db.destroy();
      const created = (await pool?.catch(() => undefined)) as PgQueryPool | undefined;
      if (created !== undefined && !created.ending) await created.end();
    },
  };
}

/** The settings of every connection opened from a `postgres://` URL. */
export function postgresUrlConfig(url: LockUrl, options: ResolvedSqlLockOptions): PgConnectionConfig {
  return {
    ...urlServer(url, DEFAULT_POSTGRES_PORT),
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    application_name: "distlock",
  };
}

/** The caller's pool: statements (and LISTEN, if enabled) borrow from it; it is never ended. */
export function openPostgresPool(pool: PgPool, options: ResolvedSqlLockOptions, db?: SqlConnection["db"]): SqlConnection {
  guardCheckedOutClients(pool);
  return {
    db: db ?? new Kysely({ dialect: new PostgresDialect({ pool: options.preparedStatements ? new PreparedPostgresPool(pool, false) : pool }) }),
    openListenClient: options.listen ? () => borrowListenClient(pool) : undefined,
    ready: async () => undefined,
    close: async () => undefined,
  };
}

async function openOwnListenClient(pg: PgModule, config: PgConnectionConfig): Promise<ListenClient> {
  const client = new pg.Client(config);
  client.on("error", () => undefined);
  await client.connect();
  return { client, release: () => void client.end().catch(() => undefined) };
}

async function borrowListenClient(pool: PgPool): Promise<ListenClient> {
  const client = await pool.connect();
  client.on("error", () => undefined);
  return { client, release: (broken) => client.release(broken) };
}

/**
 * pg-pool removes its idle "error" listener while a client is checked out, so a connection reset in
 * the middle of a statement would be an unhandled "error" event and end the process. The statement
 * itself still rejects (and the driver reports BACKEND_UNAVAILABLE); this only keeps the process alive.
 */
function guardCheckedOutClients(pool: PgPool): void {
  if (guardedPools.has(pool)) return;
  guardedPools.add(pool);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
}
