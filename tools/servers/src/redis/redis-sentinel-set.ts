import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { retryOnAddressInUse, settleAll, startOrClose } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { RedisServer } from "./redis-server.js";

/** The master name the Sentinel monitors. */
export const SENTINEL_MASTER_NAME = "distlock-master";

const REPLICA_SYNC_TIMEOUT_MS = 20_000;
const POLL_MS = 50;

/** A master, one replica and one Sentinel watching them (quorum 1), all redis-server processes without persistence. */
export class RedisSentinelSet implements AsyncDisposable {
  readonly master: RedisServer;
  readonly replica: RedisServer;
  readonly sentinel: RedisServer;
  /** `redis+sentinel://127.0.0.1:<sentinel port>/distlock-master` */
  readonly url: string;

  constructor(master: RedisServer, replica: RedisServer, sentinel: RedisServer) {
    this.master = master;
    this.replica = replica;
    this.sentinel = sentinel;
    this.url = `redis+sentinel://${sentinel.host}:${sentinel.port}/${SENTINEL_MASTER_NAME}`;
  }

  /** The port the Sentinel currently names as the master's. */
  async masterPort(): Promise<number> {
    const reply = await this.sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_MASTER_NAME);
    return Number((reply as string[])[1]);
  }

  /** Resolves once `server` reports a replica in sync with it. */
  async replicaInSync(server: RedisServer = this.master): Promise<void> {
    const deadline = Date.now() + REPLICA_SYNC_TIMEOUT_MS;
    while (!/slave0:.*state=online/.test(String(await server.command("INFO", "replication")))) {
      if (Date.now() > deadline) throw new TestServerError(`no replica of ${server.name} came online within ${REPLICA_SYNC_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  close(): Promise<void> {
    return settleAll([this.sentinel, this.replica, this.master].map((server) => server.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Starts a master, a replica in sync with it and a Sentinel monitoring them, each on a free port in a fresh temp dir. */
export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  const command = binaryPath(await ensureServerBinaries(["redis"]), "redis-server");
  const started: RedisServer[] = [];
  const start = (args: readonly string[], sentinelConfig?: (dir: string) => string) =>
    retryOnAddressInUse(async () => {
      const [port] = (await allocatePorts(1)) as [number];
      const dataDir = await createTempDir(sentinelConfig === undefined ? "redis" : "redis-sentinel");
      let leadingArgs: string[] = [];
      if (sentinelConfig !== undefined) {
        leadingArgs = [join(dataDir, "sentinel.conf")];
        await writeFile(leadingArgs[0] as string, sentinelConfig(dataDir));
      }
      const server = await startOrClose(new RedisServer({ port, dataDir, command, args, leadingArgs, startTimeoutMs: 20_000 }));
      started.push(server);
      return server;
    });
  try {
    const master = await start([]);
    const replica = await start(["--replicaof", master.host, String(master.port)]);
    const sentinel = await start(
      ["--sentinel"],
      () => `sentinel monitor ${SENTINEL_MASTER_NAME} ${master.host} ${master.port} 1\nsentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000\n`,
    );
    const set = new RedisSentinelSet(master, replica, sentinel);
    await set.replicaInSync();
    return set;
  } catch (error) {
    await settleAll(started.map((server) => server.close())).catch(() => undefined);
    throw error;
  }
}
