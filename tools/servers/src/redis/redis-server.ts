import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { ManagedServer } from "../process/managed-server.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { type RedisReply, redisCommand } from "../protocol/redis-command.js";

/** Options of {@link startRedis}. */
export interface RedisServerOptions {
  /** Extra redis-server arguments, appended to the defaults, e.g. `["--maxmemory", "64mb"]`. @default [] */
  readonly args?: readonly string[];
  /** How long `start()` waits for the server to answer. @default 20000 */
  readonly startTimeoutMs?: number;
}

export const DEFAULT_REDIS_SERVER_OPTIONS: Readonly<Required<RedisServerOptions>> = Object.freeze({
  args: Object.freeze([]),
  startTimeoutMs: 20_000,
});

/** Everything needed to run one redis-server. */
export interface RedisServerConfig {
  readonly port: number;
  readonly dataDir: string;
  /** Absolute path of redis-server. */
  readonly command: string;
  readonly args: readonly string[];
  readonly startTimeoutMs: number;
  /** @default [port] */
  readonly reservedPorts?: readonly number[];
  /** Arguments before the defaults, e.g. a config file (it must come first). @default [] */
  readonly leadingArgs?: readonly string[];
}

/** A redis-server without persistence (`--save "" --appendonly no`): a crash loses every key. */
export class RedisServer extends ManagedServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;

  constructor(config: RedisServerConfig) {
    const { port, dataDir } = config;
    super({
      name: `redis:${port}`,
      port,
      reservedPorts: config.reservedPorts ?? [port],
      dataDir,
      logFile: join(dataDir, "redis.log"),
      command: config.command,
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        ...(config.leadingArgs ?? []),
        "--port", String(port),
        "--bind", "127.0.0.1",
        "--protected-mode", "no",
        "--save", "",
        "--appendonly", "no",
        "--dir", dataDir,
        "--daemonize", "no",
        "--logfile", "",
        "--enable-debug-command", "local",
        ...config.args,
      ],
      stopSignal: "SIGTERM",
      startTimeoutMs: config.startTimeoutMs,
      stopTimeoutMs: 10_000,
    });
    this.url = `redis://127.0.0.1:${port}`;
  }

  /** Sends one command over a fresh raw connection, e.g. `command("SET", "k", "v")`. */
  command(...args: (string | number)[]): Promise<RedisReply> {
    return redisCommand(this.port, args);
  }

  /** How often this server ran the named commands so far, summed (INFO commandstats), e.g. `commandCalls("evalsha", "eval")`. */
  async commandCalls(...names: string[]): Promise<number> {
    const info = String(await this.command("INFO", "commandstats"));
    return names.reduce((sum, name) => sum + Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, "m").exec(info)?.[1] ?? 0), 0);
  }

  /** Ready when INFO answers from this very process (not from whoever else holds the port). */
  protected override async probe(pid: number): Promise<boolean> {
    const info = await redisCommand(this.port, ["INFO", "server"], 1_000);
    return typeof info === "string" && info.includes(`process_id:${pid}\r\n`);
  }
}

/** Starts a standalone redis-server on a free port in a fresh temp dir. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const settings = { ...DEFAULT_REDIS_SERVER_OPTIONS, ...options };
  const command = binaryPath(await ensureServerBinaries(["redis"]), "redis-server");
  return retryOnAddressInUse(async () => {
    const [port] = (await allocatePorts(1)) as [number];
    const dataDir = await createTempDir("redis");
    return startOrClose(new RedisServer({ port, dataDir, command, args: settings.args, startTimeoutMs: settings.startTimeoutMs }));
  });
}
