import { createRequire } from "node:module";
import { join } from "node:path";
import { ManagedServer } from "../process/managed-server.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { dynamodbCall } from "../protocol/dynamodb-call.js";

/** Options of {@link startDynalite}. */
export interface DynaliteOptions {
  /** How long `start()` waits for the first answer. @default 15000 */
  readonly startTimeoutMs?: number;
  /**
   * Keep the tables in LevelDB under the data dir (`--path`), so that they survive a restart or a kill, as DynamoDB's
   * do; otherwise in memory, lost when the process ends. @default false
   */
  readonly persistent?: boolean;
}

/** The default of every option of {@link DynaliteOptions}. */
export const DEFAULT_DYNALITE_OPTIONS: Readonly<Required<DynaliteOptions>> = Object.freeze({ startTimeoutMs: 15_000, persistent: false });

/**
 * dynalite (a DynamoDB-compatible HTTP server from npm) as its own Node.js process, keeping its tables in memory (a
 * restart or a kill loses them) or, `persistent`, in LevelDB in its data dir (a restart keeps port and tables). Tables
 * become ACTIVE at once (`--createTableMs 0`).
 */
export class DynaliteServer extends ManagedServer {
  /** `http://127.0.0.1:<port>`, the endpoint a DynamoDB client is pointed at. */
  readonly endpoint: string;

  constructor(port: number, dataDir: string, settings: Readonly<Required<DynaliteOptions>>) {
    super({
      name: `dynalite:${port}`,
      port,
      reservedPorts: [port],
      dataDir,
      logFile: join(dataDir, "dynalite.log"),
      command: process.execPath,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        createRequire(import.meta.url).resolve("dynalite/cli.js"),
        "--host", "127.0.0.1",
        "--port", String(port),
        "--createTableMs", "0",
        "--deleteTableMs", "0",
        "--updateTableMs", "0",
        ...(settings.persistent ? ["--path", join(dataDir, "tables")] : []),
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: settings.startTimeoutMs,
      stopTimeoutMs: 5_000,
    });
    this.endpoint = `http://127.0.0.1:${port}`;
  }

  /** `dynamodb://<region>/<table>?endpoint=<this server>`, the URL of a lock table on this server. */
  url(table: string, region = "us-east-1"): string {
    return `dynamodb://${region}/${table}?endpoint=${encodeURIComponent(this.endpoint)}`;
  }

  /** Ready once it answers a DynamoDB call (ListTables). */
  protected override async probe(): Promise<boolean> {
    const body = (await dynamodbCall(this.endpoint, "ListTables", {}, 1_000)) as { TableNames?: unknown };
    return Array.isArray(body.TableNames);
  }
}

/** Starts dynalite on a free port, with a fresh temp dir for its log. */
export async function startDynalite(options: DynaliteOptions = {}): Promise<DynaliteServer> {
  const settings = { ...DEFAULT_DYNALITE_OPTIONS, ...options };
  return retryOnAddressInUse(async () => {
    const [port] = (await allocatePorts(1)) as [number];
    return startOrClose(new DynaliteServer(port, await createTempDir("dynalite"), settings));
  });
}
