import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { ManagedServer } from "../process/managed-server.js";
import { isRoot } from "../process/os-user.js";
import { allocatePorts } from "../process/ports.js";
import { runCommand } from "../process/run-command.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir, removeTempDir } from "../process/temp-dir.js";
import { mariadbGreeting } from "../protocol/mariadb-greeting.js";

/** Options of {@link startMariadb}. */
export interface MariadbServerOptions {
  /** Extra mariadbd arguments, e.g. `["--innodb-lock-wait-timeout=5"]`. @default [] */
  readonly args?: readonly string[];
  /** How long `start()` waits for the server's handshake. @default 30000 */
  readonly startTimeoutMs?: number;
}

export const DEFAULT_MARIADB_SERVER_OPTIONS: Readonly<Required<MariadbServerOptions>> = Object.freeze({
  args: Object.freeze([]),
  startTimeoutMs: 30_000,
});

/** The password-protected account every test server has (besides `root` without a password). */
export const MARIADB_USER = Object.freeze({ name: "distlock", password: "distlock" });

/** Runs once, at install time: real accounts (no --skip-grant-tables) and the `test` database. */
const SETUP_SQL = `FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS 'root'@'%';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS '${MARIADB_USER.name}'@'%' IDENTIFIED BY '${MARIADB_USER.password}';
GRANT ALL PRIVILEGES ON *.* TO '${MARIADB_USER.name}'@'%';
`;

/** Everything needed to run one mariadbd on an installed data dir. */
export interface MariadbServerConfig {
  readonly port: number;
  /** Temp dir holding `data/`, the log, the socket and the pid file. */
  readonly dataDir: string;
  /** Absolute path of mariadbd (or mysqld). */
  readonly command: string;
  /** Absolute path of the mariadb (or mysql) client, used by `execute()`. */
  readonly client: string;
  readonly args: readonly string[];
  readonly startTimeoutMs: number;
}

/** A MariaDB server on 127.0.0.1 with database `test`, user `root` (no password) and `distlock`/`distlock`. */
export class MariadbServer extends ManagedServer {
  /** `mysql://root@127.0.0.1:<port>/test` */
  readonly url: string;
  /** `mysql://distlock:distlock@127.0.0.1:<port>/test`: an account with a password. */
  readonly userUrl: string;
  readonly socketPath: string;
  readonly #client: string;

  constructor(config: MariadbServerConfig) {
    const { port, dataDir } = config;
    const socketPath = join(dataDir, "mysqld.sock");
    super({
      name: `mariadb:${port}`,
      port,
      reservedPorts: [port],
      dataDir,
      logFile: join(dataDir, "mariadb.log"),
      command: config.command,
      args: [
        // --no-defaults must come first: /etc/mysql/my.cnf must not leak in.
        "--no-defaults",
        `--datadir=${join(dataDir, "data")}`,
        `--port=${port}`,
        "--bind-address=127.0.0.1",
        `--socket=${socketPath}`,
        `--pid-file=${join(dataDir, "mysqld.pid")}`,
        `--tmpdir=${dataDir}`,
        ...(isRoot() ? ["--user=root"] : []),
        "--skip-name-resolve",
        "--character-set-server=utf8mb4",
        "--max-connections=200",
        "--innodb-buffer-pool-size=32M",
        "--innodb-flush-log-at-trx-commit=2",
        "--performance-schema=OFF",
        ...config.args,
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: config.startTimeoutMs,
      stopTimeoutMs: 20_000,
    });
    this.url = this.databaseUrl("test");
    this.userUrl = `mysql://${MARIADB_USER.name}:${MARIADB_USER.password}@127.0.0.1:${port}/test`;
    this.socketPath = socketPath;
    this.#client = config.client;
  }

  /** `mysql://root@127.0.0.1:<port>/<database>` */
  databaseUrl(database: string): string {
    return `mysql://root@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** Runs SQL as root with the mariadb client over TCP and resolves with its tab-separated output. */
  execute(sql: string, database = "test"): Promise<string> {
    return runCommand(
      this.#client,
      ["--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", String(this.port), "-u", "root", "-B", "-N", "-e", sql, database],
      { timeoutMs: 30_000 },
    );
  }

  /** Creates a database and resolves with its URL. */
  async createDatabase(name: string): Promise<string> {
    await this.execute(`CREATE DATABASE \`${name.replaceAll("`", "``")}\` CHARACTER SET utf8mb4`);
    return this.databaseUrl(name);
  }

  protected override async probe(): Promise<boolean> {
    await mariadbGreeting(this.port, 1_000);
    return true;
  }
}

/** Runs mariadb-install-db into a fresh temp dir and starts mariadbd on a free port. */
export async function startMariadb(options: MariadbServerOptions = {}): Promise<MariadbServer> {
  const settings = { ...DEFAULT_MARIADB_SERVER_OPTIONS, ...options };
  const binaries = await ensureServerBinaries(["mariadb"]);
  const command = binaryPath(binaries, "mariadbd");
  const installDb = binaryPath(binaries, "mariadb-install-db");
  const client = binaryPath(binaries, "mariadb");
  return retryOnAddressInUse(async () => {
    const [port] = (await allocatePorts(1)) as [number];
    const dataDir = await createTempDir("mariadb");
    try {
      const setupFile = join(dataDir, "setup.sql");
      await writeFile(setupFile, SETUP_SQL);
      await runCommand(
        installDb,
        [
          "--no-defaults",
          `--datadir=${join(dataDir, "data")}`,
          // A private tmpdir: at start-up mariadbd deletes every #sql* file in its tmpdir, so a
          // shared /tmp breaks concurrent installs (and any other MariaDB using /tmp).
          `--tmpdir=${dataDir}`,
          ...(isRoot() ? ["--user=root"] : []),
          "--auth-root-authentication-method=normal",
          "--skip-test-db",
          "--skip-name-resolve",
          `--extra-file=${setupFile}`,
        ],
        { cwd: dataDir, timeoutMs: settings.startTimeoutMs },
      );
    } catch (error) {
      await removeTempDir(dataDir);
      throw error;
    }
    return startOrClose(new MariadbServer({ port, dataDir, command, client, args: settings.args, startTimeoutMs: settings.startTimeoutMs }));
  });
}
