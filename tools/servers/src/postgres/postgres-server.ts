import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { ManagedServer } from "../process/managed-server.js";
import { isRoot, lookupOsUser, type OsUser } from "../process/os-user.js";
import { allocatePorts } from "../process/ports.js";
import { runCommand } from "../process/run-command.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir, removeTempDir } from "../process/temp-dir.js";
import { type PostgresRows, postgresQuery } from "../protocol/postgres-query.js";

/** Options of {@link startPostgres}. */
export interface PostgresServerOptions {
  /** Extra `postgres` arguments, e.g. `["-c", "max_locks_per_transaction=256"]`. @default [] */
  readonly args?: readonly string[];
  /** How long `start()` waits for `SELECT 1` to succeed. @default 30000 */
  readonly startTimeoutMs?: number;
}

export const DEFAULT_POSTGRES_SERVER_OPTIONS: Readonly<Required<PostgresServerOptions>> = Object.freeze({
  args: Object.freeze([]),
  startTimeoutMs: 30_000,
});

/** Everything needed to run one postgres on an initialised cluster directory. */
export interface PostgresServerConfig {
  readonly port: number;
  /** Temp dir holding `pgdata/`, the log and the Unix socket. */
  readonly dataDir: string;
  /** Absolute path of the postgres binary. */
  readonly command: string;
  /** OS user to run as when this process is root (PostgreSQL refuses root). */
  readonly user?: OsUser | undefined;
  readonly args: readonly string[];
  readonly startTimeoutMs: number;
}

/** The superuser every test server has; authentication is `trust`. */
export const POSTGRES_SUPERUSER = "postgres";

/**
 * A PostgreSQL server listening on 127.0.0.1 and on a socket in its data dir. fsync is off:
 * commits survive a process crash (kill()), not an OS crash.
 */
export class PostgresServer extends ManagedServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** Directory of the Unix socket (`.s.PGSQL.<port>`). */
  readonly socketDir: string;

  constructor(config: PostgresServerConfig) {
    const { port, dataDir } = config;
    super({
      name: `postgres:${port}`,
      port,
      reservedPorts: [port],
      dataDir,
      logFile: join(dataDir, "postgres.log"),
      command: config.command,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        "-D", join(dataDir, "pgdata"),
        "-p", String(port),
        "-k", dataDir,
        "-c", "listen_addresses=127.0.0.1",
        "-c", "fsync=off",
        "-c", "full_page_writes=off",
        "-c", "max_connections=200",
        ...config.args,
      ],
      user: config.user,
      // SIGINT is the "fast" shutdown; SIGTERM would wait for clients to disconnect.
      stopSignal: "SIGINT",
      startTimeoutMs: config.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.url = this.databaseUrl("postgres");
    this.socketDir = dataDir;
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  databaseUrl(database: string): string {
    return `postgres://${POSTGRES_SUPERUSER}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** Runs one SQL statement as the superuser and resolves with its rows as text. */
  query(sql: string, database = "postgres"): Promise<PostgresRows> {
    return postgresQuery(sql, { port: this.port, database });
  }

  /** Creates a database and resolves with its URL. */
  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return this.databaseUrl(name);
  }

  protected override async probe(): Promise<boolean> {
    await postgresQuery("SELECT 1", { port: this.port, timeoutMs: 1_000 });
    return true;
  }
}

/** The OS user PostgreSQL (and PgBouncer, which refuses root too) runs as: none unless this process is root. */
export function postgresUser(): OsUser | undefined {
  if (!isRoot()) return undefined;
  const user = lookupOsUser("postgres");
  if (user === undefined) {
    throw new TestServerError(
      'PostgreSQL refuses to run as root and there is no "postgres" OS user to run it as: ' +
        "install the postgresql package (it creates the user) or run the tests as a non-root user.",
    );
  }
  return user;
}

/** Runs initdb (trust auth, superuser `postgres`) into a fresh temp dir and starts postgres on a free port. */
export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const settings = { ...DEFAULT_POSTGRES_SERVER_OPTIONS, ...options };
  const binaries = await ensureServerBinaries(["postgres"]);
  const command = binaryPath(binaries, "postgres");
  const initdb = binaryPath(binaries, "initdb");
  const user = postgresUser();
  return retryOnAddressInUse(async () => {
    const [port] = (await allocatePorts(1)) as [number];
    const dataDir = await createTempDir("postgres", user);
    try {
      await runCommand(
        initdb,
        ["-D", join(dataDir, "pgdata"), "-U", POSTGRES_SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
        { cwd: dataDir, user, timeoutMs: settings.startTimeoutMs },
      );
    } catch (error) {
      await removeTempDir(dataDir);
      throw error;
    }
    return startOrClose(new PostgresServer({ port, dataDir, command, user, args: settings.args, startTimeoutMs: settings.startTimeoutMs }));
  });
}
