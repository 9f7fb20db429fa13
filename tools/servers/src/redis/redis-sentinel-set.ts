import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, settleAll, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { RedisServer } from "./redis-server.js";

/** The master name the Sentinels monitor. */
export const SENTINEL_MASTER_NAME = "distlock-master";

/** Options of {@link startRedisSentinelSet}. */
export interface RedisSentinelSetOptions {
  /** Sentinel processes; a failover needs a majority of them to agree (the quorum). @default 1 */
  readonly sentinels?: number;
  /** Sentinel's `down-after-milliseconds`: how long the master must be unreachable before a Sentinel counts it down. @default 1000 */
  readonly downAfterMs?: number;
  /** Sentinel's `failover-timeout`: bounds each step of a failover; a failed one is retried after twice this. @default 180000 (Redis's own) */
  readonly failoverTimeoutMs?: number;
}

export const DEFAULT_REDIS_SENTINEL_SET_OPTIONS: Readonly<Required<RedisSentinelSetOptions>> = Object.freeze({
  sentinels: 1,
  downAfterMs: 1_000,
  failoverTimeoutMs: 180_000,
});

const WAIT_TIMEOUT_MS = 20_000;
const POLL_MS = 50;

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = WAIT_TIMEOUT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (performance.now() > deadline) throw new TestServerError(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** One `field:value` line of an INFO reply. */
async function infoField(server: RedisServer, section: string, field: string): Promise<string | undefined> {
  return new RegExp(`^${field}:(.*)\r?$`, "m").exec(String(await server.command("INFO", section)))?.[1];
}

/** A flat `[field, value, …]` reply as a map. */
function fieldsOf(reply: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(reply[i] as string, reply[i + 1] as string);
  return fields;
}

/** A master, one replica and Sentinels watching them (quorum: a majority), all redis-server processes without persistence. */
export class RedisSentinelSet implements AsyncDisposable {
  /** The master at start; after a failover, {@link roles} says which server is which. */
  readonly master: RedisServer;
  /** The replica at start. */
  readonly replica: RedisServer;
  /** The first Sentinel. */
  readonly sentinel: RedisServer;
  readonly sentinels: readonly RedisServer[];
  /** `redis+sentinel://127.0.0.1:<sentinel port>,…/distlock-master` */
  readonly url: string;

  constructor(master: RedisServer, replica: RedisServer, sentinels: readonly RedisServer[]) {
    this.master = master;
    this.replica = replica;
    this.sentinels = Object.freeze([...sentinels]);
    this.sentinel = sentinels[0] as RedisServer;
    this.url = `redis+sentinel://${sentinels.map((s) => `${s.host}:${s.port}`).join(",")}/${SENTINEL_MASTER_NAME}`;
  }

  /** The port a Sentinel (the first unless given) currently names as the master's. */
  masterPort(sentinel: RedisServer = this.sentinel): Promise<number> {
    return sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_MASTER_NAME).then((reply) => Number((reply as string[])[1]));
  }

  /** Which of the two data servers the first Sentinel names as the master now, and the other one. */
  async roles(): Promise<{ master: RedisServer; replica: RedisServer }> {
    const port = await this.masterPort();
    return port === this.replica.port ? { master: this.replica, replica: this.master } : { master: this.master, replica: this.replica };
  }

  /** Resolves once every Sentinel names `server` as the master (after a failover, once all of them switched). */
  async promoted(server: RedisServer, timeoutMs = WAIT_TIMEOUT_MS): Promise<void> {
    const all = async () => (await Promise.all(this.sentinels.map((s) => this.masterPort(s)))).every((port) => port === server.port);
    await until(`the Sentinels did not all name ${server.name} as the master`, all, timeoutMs);
  }

  /** Makes `replica` replicate from `port` on 127.0.0.1 (a master, or a proxy in front of one); resolves once its link is up. */
  async replicate(replica: RedisServer, port: number): Promise<void> {
    await replica.command("REPLICAOF", "127.0.0.1", port);
    const linked = async () =>
      (await infoField(replica, "replication", "master_port")) === String(port) && (await infoField(replica, "replication", "master_link_status")) === "up";
    await until(`${replica.name} did not link to port ${port}`, linked);
  }

  /**
   * Resolves once every Sentinel knows the other Sentinels and lists `replica` as up (no flag but `slave`: not
   * subjectively down, not disconnected), so that a failover could promote it.
   */
  async readyToFailOver(replica: RedisServer = this.replica): Promise<void> {
    const others = this.sentinels.length - 1;
    const ready = (sentinel: RedisServer) => async () => {
      const master = fieldsOf((await sentinel.command("SENTINEL", "MASTER", SENTINEL_MASTER_NAME)) as string[]);
      const replicas = ((await sentinel.command("SENTINEL", "REPLICAS", SENTINEL_MASTER_NAME)) as string[][]).map(fieldsOf);
      return Number(master.get("num-other-sentinels")) >= others && replicas.some((r) => r.get("port") === String(replica.port) && r.get("flags") === "slave");
    };
    await Promise.all(this.sentinels.map((sentinel) => until(`${sentinel.name} did not count ${replica.name} as an up replica`, ready(sentinel))));
  }

  /** Resolves once `server` shows no key `name` (a replica hides a key whose TTL ran out, though the master's DEL never came). */
  async keyGone(server: RedisServer, name: string, timeoutMs = WAIT_TIMEOUT_MS): Promise<void> {
    try {
      await until(`${server.name} still shows ${name}`, async () => (await server.command("EXISTS", name)) === 0, timeoutMs);
    } catch (error) {
      const [role, pttl] = await Promise.all([infoField(server, "replication", "role"), server.command("PTTL", name)]).catch(() => []);
      throw new TestServerError(`${(error as Error).message} (role ${role}, PTTL ${pttl})`);
    }
  }

  /** Resolves once `server` reports a replica in sync with it. */
  async replicaInSync(server: RedisServer = this.master): Promise<void> {
    const online = async () => /slave0:.*state=online/.test(String(await server.command("INFO", "replication")));
    await until(`no replica of ${server.name} came online`, online);
  }

  close(): Promise<void> {
    return settleAll([...this.sentinels, this.replica, this.master].map((server) => server.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Starts a master, a replica in sync with it and Sentinels monitoring them, each on a free port in a fresh temp dir.
 * The Sentinels find each other within seconds (hello messages every 2 s): await `readyToFailOver()` before a failover.
 */
export async function startRedisSentinelSet(options: RedisSentinelSetOptions = {}): Promise<RedisSentinelSet> {
  const settings = { ...DEFAULT_REDIS_SENTINEL_SET_OPTIONS, ...options };
  if (!Number.isInteger(settings.sentinels) || settings.sentinels < 1) {
    throw new TestServerError(`startRedisSentinelSet({ sentinels }) needs a positive integer; got ${settings.sentinels}.`);
  }
  const command = binaryPath(await ensureServerBinaries(["redis"]), "redis-server");
  const started: RedisServer[] = [];
  const start = (args: readonly string[], sentinelConfig?: string) =>
    retryOnAddressInUse(async () => {
      const [port] = (await allocatePorts(1)) as [number];
      const dataDir = await createTempDir(sentinelConfig === undefined ? "redis" : "redis-sentinel");
      let leadingArgs: string[] = [];
      if (sentinelConfig !== undefined) {
        leadingArgs = [join(dataDir, "sentinel.conf")];
        await writeFile(leadingArgs[0] as string, sentinelConfig);
      }
      const server = await startOrClose(new RedisServer({ port, dataDir, command, args, leadingArgs, startTimeoutMs: 20_000 }));
      started.push(server);
      return server;
    });
  try {
    // A full sync starts at once (Redis waits 5 s by default for more replicas to share a diskless transfer).
    const data = ["--repl-diskless-sync-delay", "0"];
    const master = await start(data);
    const replica = await start([...data, "--replicaof", master.host, String(master.port)]);
    const quorum = Math.floor(settings.sentinels / 2) + 1;
    const config = [
      `sentinel monitor ${SENTINEL_MASTER_NAME} ${master.host} ${master.port} ${quorum}`,
      `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${settings.downAfterMs}`,
      `sentinel failover-timeout ${SENTINEL_MASTER_NAME} ${settings.failoverTimeoutMs}`,
      "",
    ].join("\n");
    const sentinels = await Promise.all(Array.from({ length: settings.sentinels }, () => start(["--sentinel"], config)));
    const set = new RedisSentinelSet(master, replica, sentinels);
    await set.replicaInSync();
    return set;
  } catch (error) {
    await settleAll(started.map((server) => server.close())).catch(() => undefined);
    throw error;
  }
}
