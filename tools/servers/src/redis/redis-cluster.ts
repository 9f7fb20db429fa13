import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { runCommand } from "../process/run-command.js";
import { retryOnAddressInUse, settleAll, startTogether } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { CLUSTER_BUS_OFFSET, RedisClusterNode } from "./redis-cluster-node.js";

/** Options of {@link startRedisCluster}. */
export interface RedisClusterOptions {
  /** Number of masters (no replicas); Redis Cluster needs at least 3. @default 3 */
  readonly masters?: number;
  /** `cluster-node-timeout` in ms. @default 2000 */
  readonly nodeTimeoutMs?: number;
  /** How long starting and forming the cluster may take. @default 30000 */
  readonly startTimeoutMs?: number;
  /** Extra redis-server arguments for every node. @default [] */
  readonly args?: readonly string[];
}

export const DEFAULT_REDIS_CLUSTER_OPTIONS: Readonly<Required<RedisClusterOptions>> = Object.freeze({
  masters: 3,
  nodeTimeoutMs: 2_000,
  startTimeoutMs: 30_000,
  args: Object.freeze([]),
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A real Redis Cluster of masters on 127.0.0.1. */
export class RedisCluster implements AsyncDisposable {
  readonly nodes: readonly RedisClusterNode[];
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,...` */
  readonly url: string;

  constructor(nodes: readonly RedisClusterNode[]) {
    this.nodes = Object.freeze([...nodes]);
    this.url = `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(",")}`;
  }

  /** Resolves once every running, unpaused node reports `cluster_state:ok`. */
  async waitUntilHealthy(timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const live = this.nodes.filter((node) => node.running && !node.paused);
      const states = await Promise.all(live.map((node) => node.clusterStateOk().catch(() => false)));
      if (states.every(Boolean)) return;
      if (performance.now() >= deadline) {
        const failing = live.filter((_, i) => !states[i]).map((node) => node.name);
        throw new TestServerError(`Redis Cluster not healthy after ${timeoutMs} ms on ${failing.join(", ")}.`);
      }
      await sleep(50);
    }
  }

  /** Stops every node and removes their data dirs. */
  close(): Promise<void> {
    return settleAll(this.nodes.map((node) => node.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Starts `masters` cluster-enabled redis-servers, joins them with
 * `redis-cli --cluster create --cluster-replicas 0` and waits until every node says `cluster_state:ok`.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const settings = { ...DEFAULT_REDIS_CLUSTER_OPTIONS, ...options };
  if (!Number.isInteger(settings.masters) || settings.masters < 3) {
    throw new TestServerError(`Redis Cluster needs at least 3 masters; got masters: ${settings.masters}.`);
  }
  const binaries = await ensureServerBinaries(["redis"]);
  const command = binaryPath(binaries, "redis-server");
  const redisCli = binaryPath(binaries, "redis-cli");
  return retryOnAddressInUse(async () => {
    const ports = await allocatePorts(settings.masters, CLUSTER_BUS_OFFSET);
    const nodes: RedisClusterNode[] = [];
    for (const port of ports) {
      const dataDir = await createTempDir("redis-cluster");
      nodes.push(
        new RedisClusterNode({
          port,
          dataDir,
          command,
          args: settings.args,
          startTimeoutMs: settings.startTimeoutMs,
          nodeTimeoutMs: settings.nodeTimeoutMs,
        }),
      );
    }
    const cluster = new RedisCluster(nodes);
    try {
      await startTogether(nodes);
      const addresses = nodes.map((node) => `${node.host}:${node.port}`);
      await runCommand(redisCli, ["--cluster", "create", ...addresses, "--cluster-replicas", "0", "--cluster-yes"], {
        timeoutMs: settings.startTimeoutMs,
      });
      for (const node of nodes) node.markClusterFormed();
      await cluster.waitUntilHealthy(settings.startTimeoutMs);
      return cluster;
    } catch (error) {
      await cluster.close().catch(() => undefined);
      throw error;
    }
  });
}
