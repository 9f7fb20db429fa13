import { RedisServer, type RedisServerConfig } from "./redis-server.js";

/** Redis Cluster's bus port is the client port plus this offset. */
export const CLUSTER_BUS_OFFSET = 10_000;

/** Configuration of one cluster node: a redis-server plus the cluster node timeout. */
export interface RedisClusterNodeConfig extends RedisServerConfig {
  /** `cluster-node-timeout`: how long a node may be unreachable before it is marked failed. */
  readonly nodeTimeoutMs: number;
}

/** A redis-server with `cluster-enabled yes`; its cluster config lives in `<dataDir>/nodes.conf`. */
export class RedisClusterNode extends RedisServer {
  #formed = false;

  constructor(config: RedisClusterNodeConfig) {
    super({
      ...config,
      reservedPorts: [config.port, config.port + CLUSTER_BUS_OFFSET],
      // biome-ignore format: flag/value pairs read better one pair per line
      args: [
        "--cluster-enabled", "yes",
        "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", String(config.nodeTimeoutMs),
        ...config.args,
      ],
    });
  }

  /** True when this node reports `cluster_state:ok` (all slots served by reachable masters). */
  async clusterStateOk(): Promise<boolean> {
    const info = await this.command("CLUSTER", "INFO");
    return typeof info === "string" && info.includes("cluster_state:ok");
  }

  /**
   * Called by `startRedisCluster` once the cluster has been created: from then on a (re)start
   * waits until this node sees the cluster healthy again, not just until it answers.
   */
  markClusterFormed(): void {
    this.#formed = true;
  }

  protected override async probe(pid: number): Promise<boolean> {
    return (await super.probe(pid)) && (!this.#formed || (await this.clusterStateOk()));
  }
}
