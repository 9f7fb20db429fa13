import { chown, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { POSTGRES_SUPERUSER, postgresUser } from "../postgres/postgres-server.js";
import { ManagedServer } from "../process/managed-server.js";
import type { OsUser } from "../process/os-user.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { type PostgresRows, postgresQuery } from "../protocol/postgres-query.js";

/** When PgBouncer gives a client's server connection back to the pool. */
export type PgbouncerPoolMode = "session" | "transaction" | "statement";

/** Options of {@link startPgbouncer}. */
export interface PgbouncerOptions {
  /** The PostgreSQL every database name is forwarded to (a `startPostgres()` server: trust auth, superuser `postgres`). */
  readonly upstream: { readonly port: number };
  /** `pool_mode`. */
  readonly poolMode: PgbouncerPoolMode;
  /** `default_pool_size`: server connections per database and user. @default 20 */
  readonly poolSize?: number;
  /** `server_round_robin`: hand out idle server connections in turn instead of the most recently used first. @default false */
  readonly serverRoundRobin?: boolean;
  /** How long `start()` waits for `SELECT 1` through the pooler. @default 20000 */
  readonly startTimeoutMs?: number;
}

export const DEFAULT_PGBOUNCER_OPTIONS: Readonly<Required<Omit<PgbouncerOptions, "upstream" | "poolMode">>> = Object.freeze({
  poolSize: 20,
  serverRoundRobin: false,
  startTimeoutMs: 20_000,
});

/** Everything needed to run one pgbouncer on a written config file. */
export interface PgbouncerServerConfig {
  readonly port: number;
  /** Temp dir holding the config, the user list and the log. */
  readonly dataDir: string;
  /** Absolute path of the pgbouncer binary. */
  readonly command: string;
  /** OS user to run as when this process is root (PgBouncer refuses root). */
  readonly user?: OsUser | undefined;
  readonly startTimeoutMs: number;
}

/**
 * A PgBouncer on 127.0.0.1 in front of one PostgreSQL: every database name goes to the same name upstream, as the
 * upstream's superuser (`trust`, like the upstream; the user list names only that superuser).
 */
export class PgbouncerServer extends ManagedServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;

  constructor(config: PgbouncerServerConfig) {
    super({
      name: `pgbouncer:${config.port}`,
      port: config.port,
      reservedPorts: [config.port],
      dataDir: config.dataDir,
      logFile: join(config.dataDir, "pgbouncer.log"),
      command: config.command,
      args: [join(config.dataDir, "pgbouncer.ini")],
      user: config.user,
      stopSignal: "SIGINT",
      startTimeoutMs: config.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.url = this.databaseUrl("postgres");
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  databaseUrl(database: string): string {
    return `postgres://${POSTGRES_SUPERUSER}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** Runs one SQL statement through the pooler and resolves with its rows as text. */
  query(sql: string, database = "postgres"): Promise<PostgresRows> {
    return postgresQuery(sql, { port: this.port, database });
  }

  protected override async probe(): Promise<boolean> {
    await postgresQuery("SELECT 1", { port: this.port, timeoutMs: 1_000 });
    return true;
  }
}

function configFile(port: number, dataDir: string, options: Required<PgbouncerOptions>): string {
  return [
    "[databases]",
    `* = host=127.0.0.1 port=${options.upstream.port}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    // No Unix socket: tests connect over TCP, and a socket dir would be one more thing to own.
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${join(dataDir, "userlist.txt")}`,
    `pool_mode = ${options.poolMode}`,
    `default_pool_size = ${options.poolSize}`,
    `server_round_robin = ${options.serverRoundRobin ? 1 : 0}`,
    "max_client_conn = 200",
    // pg and other clients send these at login; PgBouncer refuses startup parameters it does not know.
    "ignore_startup_parameters = extra_float_digits,options",
    "",
  ].join("\n");
}

/** Writes a config for `options` into a fresh temp dir and starts pgbouncer on a free port. */
export async function startPgbouncer(options: PgbouncerOptions): Promise<PgbouncerServer> {
  const settings = { ...DEFAULT_PGBOUNCER_OPTIONS, ...options };
  const command = binaryPath(await ensureServerBinaries(["pgbouncer"]), "pgbouncer");
  const user = postgresUser();
  return retryOnAddressInUse(async () => {
    const [port] = (await allocatePorts(1)) as [number];
    const dataDir = await createTempDir("pgbouncer", user);
    const files: [string, string][] = [
      ["pgbouncer.ini", configFile(port, dataDir, settings)],
      ["userlist.txt", `"${POSTGRES_SUPERUSER}" ""\n`],
    ];
    for (const [name, text] of files) {
      await writeFile(join(dataDir, name), text);
      if (user !== undefined) await chown(join(dataDir, name), user.uid, user.gid);
    }
    return startOrClose(new PgbouncerServer({ port, dataDir, command, user, startTimeoutMs: settings.startTimeoutMs }));
  });
}
